import { readFileSync } from 'node:fs';

/** The longest stalls of this thread's event loop while a watch ran, in milliseconds. */
export interface LoopStalls {
  /** The longest wall time between two ticks of a 1 ms timer, less the 1 ms. */
  wallMs: number;
  /**
   * The same stall less the time Linux kept this thread waiting for a CPU
   * meanwhile: what the work of the loop held it for (running, or blocked in
   * a call such as an fsync), whatever else the machine was busy with. Equal
   * to `wallMs` where the scheduler's figures cannot be read.
   */
  ownMs: number;
}

/** Nanoseconds this thread has waited, runnable, for a CPU (second field of schedstat), or null. */
function runQueueWaitNs(): number | null {
  try {
    return Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[1]);
  } catch {
    return null;
  }
}

/**
 * Starts watching the event loop of the calling thread with a 1 ms timer;
 * `stop` ends the watch and answers its longest stalls. A loaded machine
 * stretches every stall by the time other processes held the CPUs: `ownMs`
 * leaves that out, so two measurements taken minutes apart compare.
 */
export function watchLoopStalls(): { stop(): LoopStalls } {
  let lastAt = performance.now();
  let lastWait = runQueueWaitNs();
  let wallMs = 0;
  let ownMs = 0;
  const tick = () => {
    const at = performance.now();
    const wait = runQueueWaitNs();
    const stall = Math.max(0, at - lastAt - 1);
    const waited = wait !== null && lastWait !== null ? (wait - lastWait) / 1e6 : 0;
    wallMs = Math.max(wallMs, stall);
    ownMs = Math.max(ownMs, Math.max(0, stall - waited));
    lastAt = at;
    lastWait = wait;
  };
  const timer = setInterval(tick, 1);
  return {
    stop() {
      tick();
      clearInterval(timer);
      return { wallMs, ownMs };
    },
  };
}
