import { describe, expect, it } from 'vitest';
import { useExecutorKernel } from '../support/executor-kernel.js';
import { eventually, scriptedRun, startTurnWithStopHook } from '../support/kernel.js';

/**
 * A handler that ignores its signal and never settles, whose claim the kernel
 * then takes back (a hook past its deadline): the executor stops waiting for
 * it, so its slot goes to the next row, and stops heartbeating a claim every
 * heartbeat would be told is lost.
 */
describe('an executor whose hung handler lost its claim', () => {
  const fixture = useExecutorKernel();

  it('frees the slot for the next row and sends no more heartbeats', async () => {
    // The heartbeats' URLs, which name the run: the next row's own may go out on a slow machine.
    const heartbeats: string[] = [];
    const of = (runId: string) => heartbeats.filter((url) => url.includes(`/${runId}/`)).length;
    let lostRun = '';
    let heartbeatsAtLoss: number | null = null;
    const errors: string[] = [];
    const ran: string[] = [];
    const executor = fixture.start(
      {
        // Ignores its signal: nothing ends it.
        slow_check: () => new Promise(() => {}),
        bash: ({ command }: { command: string }) => {
          ran.push(command);
          return 'ok';
        },
      },
      {
        concurrency: 1,
        leaseMs: 1500,
        onError: (error, task) => {
          const code = (error as { code?: string }).code ?? error.message;
          if (code === 'lease_lost' && task) {
            lostRun = task.run_id;
            heartbeatsAtLoss = of(lostRun);
          }
          errors.push(code);
        },
        fetch: (input, init) => {
          if (String(input).endsWith('/heartbeat')) heartbeats.push(String(input));
          return fetch(input, init);
        },
      },
    );
    await executor.ready;
    await startTurnWithStopHook(fixture.kernel, { tool: 'slow_check', timeoutMs: 1000 });
    await eventually(() => heartbeatsAtLoss !== null, {
      what: 'the hook claim to be lost',
      timeoutMs: 15_000,
    });
    const created = await fixture
      .runs()
      .create(
        scriptedRun('bypass', [
          { tool_calls: [{ name: 'bash', input: { command: 'echo next' } }] },
          { final: 'done' },
        ]),
      );
    expect((await fixture.ended(created.id, 15_000)).state).toBe('completed');
    expect(ran).toEqual(['echo next']);
    await eventually(() => executor.running === 0, { what: 'no row to be running' });
    expect(errors).toEqual(['lease_lost']);
    expect(heartbeatsAtLoss).toBeGreaterThan(0);
    expect(of(lostRun)).toBe(heartbeatsAtLoss);
  });
});
