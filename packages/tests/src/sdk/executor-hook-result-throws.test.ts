import { beforeAll, describe, expect, it } from 'vitest';
import { useExecutorKernel } from '../support/executor-kernel.js';
import { eventually, startTurnWithStopHook } from '../support/kernel.js';
import { stopHookUnsupportedReason } from '../support/probes.js';

/**
 * A hook handler's result that breaks the SDK's own check of it (a getter
 * that throws while core reads it): the hook ran, so its row commits a
 * failure once and is never handed out to run again.
 */
describe('an executor whose hook result throws while it is checked', () => {
  const fixture = useExecutorKernel();
  let stopHookSkip: string | null;
  beforeAll(async () => {
    stopHookSkip = await stopHookUnsupportedReason(fixture.kernel);
  });

  it('commits invalid_hook_result naming the throw, and runs the hook once', async (context) => {
    if (stopHookSkip) {
      context.skip(stopHookSkip);
      return;
    }
    let calls = 0;
    const errors: string[] = [];
    // A short lease: a row left uncommitted would be handed out again within the test's wait.
    fixture.start(
      {
        broken_check: () => {
          calls++;
          return {
            get continue(): boolean {
              throw new Error('the getter broke');
            },
          };
        },
      },
      { leaseMs: 1000, onError: (error) => errors.push(error.message) },
    );
    const run = fixture
      .runs()
      .run(
        await startTurnWithStopHook(fixture.kernel, { tool: 'broken_check', timeoutMs: 20_000 }),
      );
    const hook = await eventually(async () =>
      (await run.tasks()).find(
        (task) => task.kind === 'hook' && task.state !== 'claimed' && task.state !== 'runnable',
      ),
    );
    expect(hook).toMatchObject({ state: 'failed', attempts: 1 });
    expect(hook.error?.code).toBe('invalid_hook_result');
    expect(hook.error?.detail).toContain('the getter broke');
    // Two more leases' time: a row handed out again would have run by now.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(calls).toBe(1);
    if ((await run.get()).state === 'running') await run.stop();
  });
});
