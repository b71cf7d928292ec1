import type { TaskView } from '@airlock/sdk';
import { describe, expect, it } from 'vitest';
import { useExecutorKernel } from '../support/executor-kernel.js';
import { scriptedRun } from '../support/kernel.js';

/** The kernel grants a lease shorter than the executor asks for: heartbeats follow the grant. */
describe('executor heartbeats under a kernel that caps leases', () => {
  const fixture = useExecutorKernel({ maxLeaseMs: 1500 });
  const { start, runs } = fixture;

  it('renews a capped lease in time, so a tool that outlasts it still commits', async () => {
    const committed: TaskView[] = [];
    const errors: Error[] = [];
    // Asked for 30 s, granted 1.5 s: heartbeats every 10 s would let the lease lapse.
    start(
      {
        build: async () => {
          await new Promise((resolve) => setTimeout(resolve, 4000));
          return 'built';
        },
      },
      {
        leaseMs: 30_000,
        onCommitted: (task) => committed.push(task),
        onError: (error) => errors.push(error),
      },
    );
    const created = await runs().create(
      scriptedRun('bypass', [{ tool_calls: [{ name: 'build' }] }, { final: 'done' }]),
    );
    const ended = await fixture.ended(created.id, 20_000);
    expect(errors).toEqual([]);
    expect(committed.map((task) => task.state)).toEqual(['succeeded']);
    expect(ended.state).toBe('completed');
  });
});
