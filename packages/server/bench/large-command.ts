/**
 * How long one request holding an 800 KB shell command blocks the kernel's
 * event loop while it parks (issue 24, "Abuse"): an in-process SQLite kernel,
 * a run in `ask` mode under an action contract, a manifest and a rule set (so
 * every layer reads the call), one `bash` call whose command is 800 KB of
 * shell text. Prints the request's wall time and the event loop's longest
 * stall (perf_hooks monitorEventLoopDelay, 1 ms resolution) per repetition,
 * and that stall less the time Linux kept the loop's thread waiting for a CPU
 * (src/testing/loop-stalls.ts): on a loaded machine, the part that is the
 * kernel's own. #1 is the first request of a fresh process, its code cold. The
 * request is sent from a worker thread, so the client's own work is not counted.
 *
 *   pnpm --filter @airlock/server bench:large-command [--kb 800] [--repeat 5] [--shape script|dense]
 *
 * `script` is a pasted script of varied lines; `dense` is `ls;` over and over,
 * the shape that costs the classifier most per byte.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { startAirlock } from '../src/airlock.js';
import { largeCommand, largeCommandRun, postFromWorker } from '../src/testing/large-command.js';
import { watchLoopStalls } from '../src/testing/loop-stalls.js';
import { benchWorkspace } from './bench-workspace.js';

const { values } = parseArgs({
  // `pnpm x -- --flag` hands the `--` on: the flags after it are still ours.
  args: process.argv.slice(2).filter((arg) => arg !== '--'),
  options: {
    kb: { type: 'string', default: '800' },
    repeat: { type: 'string', default: '5' },
    shape: { type: 'string', default: 'script' },
  },
});
const bytes = Number(values.kb) * 1000;
const command = largeCommand(bytes, values.shape as 'script' | 'dense');
const body = JSON.stringify(largeCommandRun(command));

const dataDir = mkdtempSync(join(tmpdir(), 'airlock-large-command-'));
const airlock = await startAirlock({ dataDir, rateLimit: null, validateOutputs: false });
try {
  const target = await benchWorkspace(airlock);
  console.log(
    `large-command: one ${(Buffer.byteLength(command) / 1000).toFixed(0)} KB bash command (${values.shape}), ask mode, contract + manifest + rule set, SQLite`,
  );
  for (let i = 0; i < Number(values.repeat); i++) {
    const monitor = monitorEventLoopDelay({ resolution: 1 });
    monitor.enable();
    const watch = watchLoopStalls();
    const started = performance.now();
    // From a worker thread: encoding the body and reading the answer are the client's work,
    // not the kernel's, and must not count in this loop's stalls.
    const answer = await postFromWorker(`${target.url}${target.ws}/runs`, target.agent, body);

    // The first round parks after the create answers: watch the row in the store itself, so
    // that no polling request (which would carry the 800 KB back) loads the loop being measured.
    for (;;) {
      const row = await airlock.store.db
        .selectFrom('tasks')
        .select('state')
        .where('run_id', '=', String(answer.id))
        .executeTakeFirst();
      if (row?.state === 'needs_approval') break;
      if (row && row.state !== 'ready') throw new Error(`the call did not park: ${row.state}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const wall = performance.now() - started;
    monitor.disable();
    const { ownMs } = watch.stop();
    console.log(
      `  #${i + 1}: ${answer.status}, parked after ${wall.toFixed(0)} ms; ` +
        `longest event-loop stall ${(monitor.max / 1e6).toFixed(1)} ms (p99 ${(monitor.percentile(99) / 1e6).toFixed(1)} ms); ` +
        `without the time it waited for a CPU ${ownMs.toFixed(1)} ms`,
    );
  }
} finally {
  await airlock.close();
  rmSync(dataDir, { recursive: true, force: true });
}
