import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from '../testing/harness.js';
import { largeCommand, largeCommandRun, postFromWorker } from '../testing/large-command.js';
import { backends } from '../testing/stores.js';

const sqlite = (await backends()).filter((backend) => backend.name === 'sqlite');

/**
 * The longest the kernel's event loop (this process's: the kernel runs in it)
 * stalled between posting a run whose one call carries `input` and that call
 * resting parked, watched in the store so that no polling request adds load.
 */
async function longestStall(d: Deployment, input: Record<string, string>): Promise<number> {
  const run = largeCommandRun('');
  (run.provider as { rounds: { tool_calls?: { input: unknown }[] }[] }).rounds[0]!
    .tool_calls![0]!.input = input;
  const body = JSON.stringify(run);
  const monitor = monitorEventLoopDelay({ resolution: 1 });
  monitor.enable();
  const created = await postFromWorker(`${d.url}${d.ws}/runs`, d.tokens.agent, body);
  expect(created.status).toBe(201);
  for (;;) {
    const row = await d.airlock.store.db
      .selectFrom('tasks')
      .select('state')
      .where('run_id', '=', created.id)
      .executeTakeFirst();
    if (row?.state === 'needs_approval') break;
    expect(row?.state ?? 'ready').toBe('ready');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  monitor.disable();
  return monitor.max / 1e6;
}

for (const backend of sqlite) {
  describe('an 800 KB command does not hold the event loop to be classified', () => {
    let d: Deployment;
    beforeAll(async () => {
      d = await deploy(backend, { validateOutputs: false });
    });
    afterAll(async () => {
      await d?.close();
    });

    it('parking it stalls the loop no longer than parking a call carrying the same bytes unclassified (within 50 ms)', async () => {
      // `ls;` over and over: the most shell segments per byte, the classifier's costliest shape.
      const dense = largeCommand(800_000, 'dense');
      const hostile: number[] = [];
      const control: number[] = [];
      // Best of up to eight pairs, stopping once within the bound: a loaded 2-core machine
      // pauses any process now and then on its own.
      for (let attempt = 0; attempt < 8; attempt++) {
        // The control carries the same 800 KB in a field no layer classifies: what reading,
        // parsing and storing the call costs anyway.
        control.push(await longestStall(d, { command: 'ls', note: dense }));
        hostile.push(await longestStall(d, { command: dense }));
        if (Math.min(...hostile) - Math.min(...control) <= 50) break;
      }
      const show = (list: number[]) => list.map((ms) => ms.toFixed(0)).join(', ');
      console.log(
        `[large command] longest event-loop stall per attempt: 800 KB command ${show(hostile)} ms; same bytes unclassified ${show(control)} ms`,
      );
      expect(Math.min(...hostile) - Math.min(...control)).toBeLessThanOrEqual(50);
    }, 240_000);
  });
}
