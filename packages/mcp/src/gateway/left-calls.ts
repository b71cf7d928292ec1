import type { TaskView } from '@airlock/sdk';
import type { RunFeedWatch } from './run-feed-watch.js';
import { SETTLED_STATES } from './tool-results.js';

/** The longest a row a gone client left waiting goes unread (its run's feed wakes it sooner). */
const LEFT_POLL_MAX_MS = 10_000;

/** What {@link untilLeftCallsSettle} reads and waits with. */
export interface LeftCallsWait {
  /** The rows of one run whose calls' client went away while they waited. */
  rows: readonly TaskView[];
  /** The row as the kernel has it now; null while the kernel cannot answer. */
  read(task: TaskView): Promise<TaskView | null>;
  /** The session's run feed: an event on a row wakes the wait before its next read. */
  feed: RunFeedWatch;
  /** Aborted when the gateway stops: the wait ends there, the rows still waiting. */
  stopping: AbortSignal;
  /** The shortest pause between reads. */
  pollMs: number;
}

/**
 * Waits until every row a gone client left waiting has settled: approved
 * and run (by this gateway's bridge or another executor), denied, expired or
 * canceled. A row is read less often as it waits (a tenth of its age, at
 * most every 10 s), and at once when its run's feed tells of it.
 * @returns true once they all settled; false when `stopping` aborted first.
 * @throws the kernel's refusal of a read (a revoked credential, a row gone).
 */
export async function untilLeftCallsSettle(wait: LeftCallsWait): Promise<boolean> {
  const [first] = wait.rows;
  if (!first) return true;
  let waiting = [...wait.rows];
  const started = Date.now();
  const unwatch = wait.feed.watch(first.run_id);
  try {
    while (!wait.stopping.aborted) {
      const readAsOf = wait.feed.opens;
      const read = await Promise.all(waiting.map(async (task) => (await wait.read(task)) ?? task));
      waiting = read.filter((task) => !SETTLED_STATES.includes(task.state));
      const [next] = waiting;
      if (!next) return true;
      const waited = Date.now() - started;
      const delay = Math.max(wait.pollMs, Math.min(LEFT_POLL_MAX_MS, Math.floor(waited / 10)));
      const missed = readAsOf !== wait.feed.opens;
      await wait.feed.pause(`${next.run_id}/${next.key}`, missed ? 0 : delay, wait.stopping);
    }
    return false;
  } finally {
    unwatch();
  }
}
