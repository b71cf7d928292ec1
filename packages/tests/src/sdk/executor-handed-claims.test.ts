import type { ClaimView, TaskView } from '@airlock/sdk';
import { describe, expect, it } from 'vitest';
import { useExecutorKernel } from '../support/executor-kernel.js';
import { eventually, scriptedRun } from '../support/kernel.js';
import { startSteeringProxy } from '../support/steering-proxy.js';

/** A claim handed to runClaimed holds its row only for its lease, however old. */
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

  it('does not run a handed-in claim whose lease already lapsed', async () => {
    // `wait` is served by nobody: the run stays running. (Its own tool name: this test leaves
    // its row unclaimed for the next.)
    const created = await runs().create(
      scriptedRun('bypass', [
        { tool_calls: [{ name: 'lint' }, { name: 'wait' }] },
        { final: 'done' },
      ]),
    );
    const old = await eventually(() => claimOnce('lint', 1000).catch(() => null), {
      what: 'the lint row to be claimable',
    });
    expect(old.task.run_id).toBe(created.id);
    // Held past its lease without heartbeats: another claim may hold the row by now.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    let ran = 0;
    const errors: Error[] = [];
    const executor = start(
      {
        lint: () => {
          ran++;
          return 'from-the-old-claim';
        },
      },
      {
        onError: (error, task) => {
          if (task) errors.push(error);
        },
      },
    );
    expect(await executor.runClaimed(old)).toBeNull();
    expect(ran).toBe(0);
    expect(errors.map((error) => (error as { code?: string }).code)).toEqual(['lease_lost']);
  });

  it('does not count a refused retry as landed when the lease lapsed while its tool ran', async () => {
    let commits = 0;
    // The old claim's heartbeats never arrive, so its lease lapses while its tool runs; its
    // first commit reaches the kernel, its answer is dropped; a retry would go through.
    const proxy = await startSteeringProxy(fixture.kernel.url, ({ path, body }) => {
      if (path.endsWith('/heartbeat')) return 'stall';
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
      const committedByOther = () =>
        eventually(
          async () => {
            const tasks = await runs().run(created.id).tasks();
            return tasks.some((task) => task.key === old.task.key && task.state === 'succeeded');
          },
          { what: 'the other executor to commit the row' },
        );

      const errors: Error[] = [];
      const committed: TaskView[] = [];
      const executor = start(
        {
          // Runs until the row, its lease lapsed, was claimed and committed by the other executor.
          build: async () => {
            await committedByOther();
            return 'from-the-old-claim';
          },
        },
        {
          url: proxy.url,
          // This executor's own lease is long: only the claim's lease says it lapsed.
          leaseMs: 10_000,
          onError: (error, task) => {
            if (task) errors.push(error);
          },
          onCommitted: (task) => committed.push(task),
        },
      );
      const answering = executor.runClaimed(old);
      const second: number[] = [];
      const other = start({
        build: (_input, { attempt }) => {
          second.push(attempt);
          return 'from-the-new-claim';
        },
      });
      // The lapse ends the claim's run at once: its handler, ignoring its signal, is not waited for.
      expect(await answering).toBeNull();
      await committedByOther();
      expect(second).toEqual([2]);
      await other.close();
      expect(committed).toEqual([]);
      expect(errors).toHaveLength(1);
      // The lease lapsed while the tool ran: its handler was told so and nothing was committed,
      // neither once nor again as if the lease were held.
      expect(commits).toBe(0);
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
