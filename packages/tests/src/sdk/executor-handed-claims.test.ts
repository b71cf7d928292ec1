import type { ClaimView, TaskView } from '@airlock/sdk';
import { describe, expect, it } from 'vitest';
import { useExecutorKernel } from '../support/executor-kernel.js';
import { eventually, scriptedRun } from '../support/kernel.js';
import { startSteeringProxy } from '../support/steering-proxy.js';

/** A claim handed to runClaimed holds its row only until the kernel's lease_until, however old. */
describe('executor runClaimed with a claim granted long before', () => {
  const fixture = useExecutorKernel();
  const { start, runs } = fixture;

  /** Claims the row of `toolName` over REST, as a gateway round would, without heartbeating it. */
  const claimOnce = async (toolName: string, leaseMs: number): Promise<ClaimView> => {
    const answer = await fetch(`${fixture.kernel.url}/executor_api/v1/claim`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${fixture.kernel.workspace.tokens.executor}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ tool_names: [toolName], lease_ms: leaseMs }),
    });
    expect(answer.status).toBe(200);
    const { claim } = (await answer.json()) as { claim: ClaimView | null };
    if (!claim) throw new Error(`no ${toolName} row to claim`);
    return claim;
  };

  it('does not count a refused retry as landed when the handed-in lease lapsed before it was run', async () => {
    let commits = 0;
    // The first commit of the old claim reaches the kernel, its answer is dropped; the retry goes through.
    const proxy = await startSteeringProxy(fixture.kernel.url, ({ path, body }) => {
      if (!path.endsWith('/commit') || !body.includes('from-the-old-claim')) return 'forward';
      commits++;
      return commits === 1 ? 'drop_answer' : 'forward';
    });
    try {
      // `wait` is served by nobody: the run stays running, so only the row's own state refuses.
      const created = await runs().create(
        scriptedRun('bypass', [
          { tool_calls: [{ name: 'build' }, { name: 'wait' }] },
          { final: 'done' },
        ]),
      );
      const old = await eventually(() => claimOnce('build', 1000).catch(() => null), {
        what: 'the build row to be claimable',
      });
      expect(old.task.run_id).toBe(created.id);
      // Held past its lease without heartbeats: the kernel hands the row out again.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const second: number[] = [];
      const other = start({
        build: (_input, { attempt }) => {
          second.push(attempt);
          return 'from-the-new-claim';
        },
      });
      await eventually(
        async () => {
          const tasks = await runs().run(created.id).tasks();
          return tasks.some((task) => task.key === old.task.key && task.state === 'succeeded');
        },
        { what: 'the other executor to commit the row' },
      );
      expect(second).toEqual([2]);
      await other.close();

      const errors: Error[] = [];
      const committed: TaskView[] = [];
      const executor = start(
        { build: () => 'from-the-old-claim' },
        {
          url: proxy.url,
          // This executor's own lease is long: only the claim's lease_until says it lapsed.
          leaseMs: 10_000,
          onError: (error, task) => {
            if (task) errors.push(error);
          },
          onCommitted: (task) => committed.push(task),
        },
      );
      const answered = await executor.runClaimed(old);
      expect(answered).toBeNull();
      expect(committed).toEqual([]);
      expect(errors).toHaveLength(1);
      // The lease had lapsed: the unanswered commit is not retried as if it were held.
      expect(commits).toBe(1);
      const tasks = await runs().run(created.id).tasks();
      expect(tasks.find((task) => task.key === old.task.key)).toMatchObject({
        state: 'succeeded',
        result: 'from-the-new-claim',
        attempts: 2,
      });
    } finally {
      await proxy.close();
    }
  });
});
