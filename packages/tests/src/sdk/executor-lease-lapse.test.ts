import { describe, expect, it } from 'vitest';
import { useExecutorKernel } from '../support/executor-kernel.js';
import { eventually, scriptedRun } from '../support/kernel.js';
import { startSteeringProxy } from '../support/steering-proxy.js';

/** A handler whose lease lapses with no heartbeat answered is told to stop before another executor runs its row. */
describe('executor leases that lapse while the handler runs', () => {
  const fixture = useExecutorKernel();
  const { start, runs } = fixture;

  it("aborts the handler when its link goes silent and the lease lapses, before another executor's attempt runs", async () => {
    let silent = false;
    // Executor A reaches the kernel through a link that goes silent: its heartbeats get no answer.
    const proxy = await startSteeringProxy(fixture.kernel.url, () =>
      silent ? 'stall' : 'forward',
    );
    const events: { who: string; what: string; code?: string; at: number }[] = [];
    const handler =
      (who: string, runsMs: number) =>
      async (_input: unknown, context: { signal: AbortSignal; attempt: number }) => {
        events.push({ who, what: `started attempt ${context.attempt}`, at: performance.now() });
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, runsMs);
          context.signal.addEventListener('abort', () => {
            clearTimeout(timer);
            events.push({
              who,
              what: 'aborted',
              code: (context.signal.reason as { code?: string }).code,
              at: performance.now(),
            });
            resolve();
          });
        });
        return `${who} paid`;
      };
    try {
      const errors: Error[] = [];
      start(
        { pay: handler('A', 5000) },
        { url: proxy.url, leaseMs: 1000, onError: (error) => errors.push(error) },
      );
      const created = await runs().create(
        scriptedRun('bypass', [{ tool_calls: [{ name: 'pay' }] }, { final: 'paid' }]),
      );
      await eventually(() => events.length > 0, { what: "A's handler to start" });
      silent = true;
      start({ pay: handler('B', 0) }, { leaseMs: 1000, pollMs: 200 });
      await eventually(() => events.some((event) => event.who === 'B'), {
        what: 'B to run the row once A lease lapsed',
      });
      const aborted = events.find((event) => event.who === 'A' && event.what === 'aborted');
      const startedB = events.find((event) => event.who === 'B');
      expect(aborted).toMatchObject({ code: 'lease_lost' });
      expect(aborted?.at).toBeLessThanOrEqual(startedB?.at ?? 0);
      expect(startedB?.what).toBe('started attempt 2');
      expect(errors.map((error) => (error as { code?: string }).code)).toContain('lease_lost');
      await fixture.ended(created.id);
    } finally {
      await proxy.close();
    }
  });
});
