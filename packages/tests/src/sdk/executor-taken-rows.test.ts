import { describe, expect, it } from 'vitest';
import { useExecutorKernel } from '../support/executor-kernel.js';
import { eventually, scriptedRun } from '../support/kernel.js';

/**
 * Rows handed to an executor by address (`take`: an MCP gateway running its
 * own clients' calls) took the slots of its `concurrency`, so while a
 * gateway's clients ran long tools its executor claimed nothing else: an
 * approved call of a client that had left, or another run's call, waited for
 * one of them to end. They now run besides the executor's own claims.
 */
describe('an executor with rows taken by address', () => {
  const { start, runs } = useExecutorKernel();

  it("still claims its inbox's rows while taken rows fill its concurrency", async () => {
    const taken = new Set<string>();
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let slowStarted = false;
    const executor = start(
      {
        slow: async () => {
          slowStarted = true;
          await held;
          return 'slow done';
        },
        fast: () => 'fast done',
      },
      { concurrency: 1, leaves: (nudge) => taken.has(nudge.run_id) },
    );
    await executor.ready;
    try {
      const slowRun = await runs().create(
        scriptedRun('bypass', [{ tool_calls: [{ name: 'slow', input: {} }] }, { final: 'ok' }]),
      );
      taken.add(slowRun.id);
      await eventually(async () => (await runs().run(slowRun.id).tasks())[0]?.state === 'runnable');
      const slow = executor.take(slowRun.id, 't1');
      await eventually(async () => slowStarted);

      const fastRun = await runs().create(
        scriptedRun('bypass', [{ tool_calls: [{ name: 'fast', input: {} }] }, { final: 'ok' }]),
      );
      // The executor's own slot is free: the nudge's row runs while the taken one still does.
      const fast = await eventually(async () => {
        const [task] = await runs().run(fastRun.id).tasks();
        return task?.state === 'succeeded' && task;
      });
      expect(fast.result).toBe('fast done');
      expect((await runs().run(slowRun.id).tasks())[0]?.state).toBe('claimed');
      release();
      expect(await slow).toMatchObject({ state: 'succeeded', result: 'slow done' });
    } finally {
      release();
    }
  });
});
