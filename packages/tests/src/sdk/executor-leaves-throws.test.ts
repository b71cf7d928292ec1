import { describe, expect, it } from 'vitest';
import { useExecutorKernel } from '../support/executor-kernel.js';
import { scriptedRun } from '../support/kernel.js';

/*
 * An executor's `leaves` is the application's listener, as onRan and onCommitted are: what it
 * throws is told to onError and the nudge is served as any other. Before, the throw ended the
 * cable for good (and, once a cable's end ended the executor, the executor), so later nudges
 * were never heard. The poll is ten minutes here: only the cable can bring the work.
 */
describe('an executor whose leaves listener throws', () => {
  const fixture = useExecutorKernel();
  const { start, runs, ended } = fixture;

  it('tells onError and serves the nudge; the next run is served too', async () => {
    const errors: Error[] = [];
    const executor = start(
      { bash: () => 'ran' },
      {
        pollMs: 600_000,
        leaves: () => {
          throw new Error('leaves broke');
        },
        onError: (error) => errors.push(error),
      },
    );
    await executor.ready;
    for (const round of [1, 2]) {
      const created = await runs().create(
        scriptedRun('bypass', [{ tool_calls: [{ name: 'bash' }] }, { final: `done ${round}` }]),
      );
      expect(await ended(created.id)).toMatchObject({ state: 'completed' });
      const [task] = await runs().run(created.id).tasks();
      expect(task).toMatchObject({ state: 'succeeded', result: 'ran' });
    }
    expect(errors.length).toBeGreaterThanOrEqual(2);
    expect(errors.every((error) => error.message === 'leaves broke')).toBe(true);
    await executor.close();
    await executor.closed;
  });
});
