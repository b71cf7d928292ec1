import type { ClaimView, TaskView } from '@airlock/sdk';
import { describe, expect, it } from 'vitest';
import { useExecutorKernel } from '../support/executor-kernel.js';
import { eventually, scriptedRun, startTurnWithStopHook } from '../support/kernel.js';
import { startSteeringProxy } from '../support/steering-proxy.js';

/** How far the kernel's clock runs ahead of the executor's. */
const AHEAD_MS = 60_000;

/** An executor measures its lease on its own clock, from when it asked: a kernel clock ahead of it changes nothing. */
describe('executor leases under a kernel clock a minute ahead', () => {
  const fixture = useExecutorKernel({ clock: () => Date.now() + AHEAD_MS });
  const { start, runs } = fixture;

  it('counts a handed-in claim held for its lease_ms from when its request was sent, not until its lease_until', async () => {
    let commits = 0;
    // The old claim's commit is never answered: only a lease believed held would send it again.
    const proxy = await startSteeringProxy(fixture.kernel.url, ({ path, body }) => {
      if (!path.endsWith('/commit') || !body.includes('from-the-old-claim')) return 'forward';
      commits++;
      return 'stall';
    });
    try {
      // `wait` is served by nobody: the run stays running.
      const created = await runs().create(
        scriptedRun('bypass', [
          { tool_calls: [{ name: 'build' }, { name: 'wait' }] },
          { final: 'done' },
        ]),
      );
      const claimBuild = async (leaseMs: number) => {
        const sentAt = performance.now();
        const answer = await fetch(`${fixture.kernel.url}/executor_api/v1/claim`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${fixture.kernel.workspace.tokens.executor}`,
            'content-type': 'application/json',
          },
          body: JSON.stringify({ tool_names: ['build'], lease_ms: leaseMs }),
        });
        const { claim } = (await answer.json()) as { claim: ClaimView | null };
        return claim && { claim, sentAt };
      };
      const { claim, sentAt } = await eventually(() => claimBuild(1000), {
        what: 'the build row to be claimable',
      });
      expect(claim.task.run_id).toBe(created.id);
      expect(claim.lease_ms).toBe(1000);
      // Read on this clock, the kernel's lease_until is still a minute away.
      expect(claim.lease_until).toBeGreaterThan(Date.now() + AHEAD_MS / 2);
      // Past its lease the kernel lets it lapse, and someone else claims the row.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      await eventually(() => claimBuild(30_000), { what: 'the lapsed row to be claimed again' });

      const errors: Error[] = [];
      const committed: TaskView[] = [];
      let ran = 0;
      const executor = start(
        {
          build: () => {
            ran++;
            return 'from-the-old-claim';
          },
        },
        {
          url: proxy.url,
          leaseMs: 10_000,
          timeoutMs: 300,
          onError: (error, task) => {
            if (task) errors.push(error);
          },
          onCommitted: (task) => committed.push(task),
        },
      );
      expect(await executor.runClaimed(claim, { sentAt })).toBeNull();
      // Believed held until lease_until, its tool would run a second time beside the claim that
      // holds the row now, and its commit be sent again; lapsed a second after it was asked
      // for, it does not run at all.
      expect(ran).toBe(0);
      expect(commits).toBe(0);
      expect(committed).toEqual([]);
      expect(errors.map((error) => (error as { code?: string }).code)).toEqual(['lease_lost']);
    } finally {
      await proxy.close();
    }
  });

  it("aborts a hook tool at the hook's deadline on the executor's clock, not a minute late", async () => {
    const aborted: { code: string | undefined; afterMs: number }[] = [];
    start({
      // Never answers by itself: only its signal ends it.
      slow_check: (_input: unknown, { signal }) =>
        new Promise((_resolve, reject) => {
          const began = performance.now();
          signal.addEventListener('abort', () => {
            aborted.push({
              code: (signal.reason as { code?: string } | undefined)?.code,
              afterMs: performance.now() - began,
            });
            reject(signal.reason);
          });
        }),
    });
    await startTurnWithStopHook(fixture.kernel, { tool: 'slow_check', timeoutMs: 2000 });
    // Read on this wall clock, deadline_at is a minute away; the hook's own 2 s is what counts.
    const [first] = await eventually(() => aborted.length > 0 && aborted, {
      what: 'the hook tool to be aborted',
      timeoutMs: 15_000,
    });
    expect(first?.code).toBe('deadline_exceeded');
    // On the kernel's clock it would run 62 s. Its own 2 s, counted from the claim's request, end
    // a little before 2 s of the tool, or a little after on a loaded machine whose timers fire late.
    expect(first?.afterMs).toBeLessThan(5_000);
  });
});
