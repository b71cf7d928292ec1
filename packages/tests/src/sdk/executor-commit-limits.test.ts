import type { TaskView } from '@airlock/sdk';
import { describe, expect, it } from 'vitest';
import { useExecutorKernel } from '../support/executor-kernel.js';
import { eventually, scriptedRun } from '../support/kernel.js';
import { type Steer, startSteeringProxy } from '../support/steering-proxy.js';

/** A commit whose body carries `marker` is steered as told; everything else passes. */
function steerCommits(marker: string, first: Steer, then: Steer = first) {
  let seen = 0;
  return ({ path, body }: { path: string; body: string }): Steer => {
    if (!path.endsWith('/commit') || !body.includes(marker)) return 'forward';
    seen++;
    return seen === 1 ? first : then;
  };
}

/** Commits that never arrive, or arrive unanswered: the row commits once, in bounded time. */
describe('executor commits that cannot arrive or are not answered', () => {
  const fixture = useExecutorKernel();
  const { start, runs, ended } = fixture;

  it('commits result_undeliverable once when the result never arrives while heartbeats do: no livelock, no rerun', async () => {
    const proxy = await startSteeringProxy(
      fixture.kernel.url,
      steerCommits('never-arrives', 'stall'),
    );
    try {
      let ran = 0;
      const errors: Error[] = [];
      const executor = start(
        {
          upload: () => {
            ran++;
            return { blob: 'never-arrives' };
          },
        },
        {
          url: proxy.url,
          leaseMs: 1000,
          timeoutMs: 500,
          onError: (error, task) => {
            if (task) errors.push(error);
          },
        },
      );
      await executor.ready;
      const created = await runs().create(
        scriptedRun('bypass', [{ tool_calls: [{ name: 'upload' }] }, { final: 'done' }]),
      );
      expect(await ended(created.id, 8000)).toMatchObject({ state: 'completed' });
      // Two more leases' time: a row handed out again would have run by now.
      await new Promise((resolve) => setTimeout(resolve, 2500));
      expect(ran).toBe(1);
      const [task] = await runs().run(created.id).tasks();
      expect(task).toMatchObject({ state: 'failed', attempts: 1 });
      expect(task?.error?.code).toBe('result_undeliverable');
      expect(task?.error?.detail).toMatch(/deadline_exceeded/);
      expect(errors.map((error) => (error as { code?: string }).code)).toEqual([
        'deadline_exceeded',
      ]);
      // Nothing is left retrying: a plain close resolves.
      await executor.close();
      expect(executor.running).toBe(0);
    } finally {
      await proxy.close();
    }
  });

  /**
   * Runs one `build` call, answering `result`, through an executor on
   * `proxyUrl`, until its run completed and its commit settled (committed or
   * reported): what the executor ran, reported and committed.
   */
  const buildOnce = async (
    proxyUrl: string,
    result: string,
    { timeoutMs, leaseMs = 1000 }: { timeoutMs?: number; leaseMs?: number } = {},
  ) => {
    const seen = { ran: 0, errors: [] as Error[], committed: [] as TaskView[] };
    const executor = start(
      {
        build: () => {
          seen.ran++;
          return result;
        },
      },
      {
        url: proxyUrl,
        leaseMs,
        ...(timeoutMs === undefined ? {} : { timeoutMs }),
        onError: (error, task) => {
          if (task) seen.errors.push(error);
        },
        onCommitted: (task) => seen.committed.push(task),
      },
    );
    await executor.ready;
    const created = await runs().create(
      scriptedRun('bypass', [{ tool_calls: [{ name: 'build' }] }, { final: 'done' }]),
    );
    expect(await ended(created.id, 8000)).toMatchObject({ state: 'completed' });
    await eventually(() => seen.committed.length > 0 || seen.errors.length > 0, {
      what: 'the commit to be settled',
    });
    return { ...seen, runId: created.id };
  };

  for (const lost of ['drop_answer', 'hold_answer'] as const) {
    it(`treats a retry refused because its first attempt landed as committed (${lost})`, async () => {
      const proxy = await startSteeringProxy(
        fixture.kernel.url,
        steerCommits('lands-unanswered', lost, 'forward'),
      );
      try {
        // A held answer times out after three leases: heartbeats meanwhile hear lease_lost. A
        // dropped one is retried at once, within a lease long enough that a loaded machine does
        // not lapse it first (at 1 s the retry met a lapsed lease, and the executor reported the
        // lost answer instead, in a fresh-clone run beside other jobs).
        const { ran, errors, committed, runId } = await buildOnce(
          proxy.url,
          'lands-unanswered',
          lost === 'hold_answer' ? { timeoutMs: 3000 } : { timeoutMs: 15_000, leaseMs: 5000 },
        );
        expect(errors).toEqual([]);
        expect(committed).toHaveLength(1);
        expect(committed[0]).toMatchObject({ state: 'succeeded', result: 'lands-unanswered' });
        expect(ran).toBe(1);
        const [task] = await runs().run(runId).tasks();
        expect(task).toMatchObject({ state: 'succeeded', result: 'lands-unanswered', attempts: 1 });
      } finally {
        await proxy.close();
      }
    });
  }

  it("recognises a landed commit by the refusal's claim, whatever its detail says", async () => {
    // The first attempt lands unanswered; the retry's lease_lost reaches the executor reworded.
    const reworded: Steer = {
      rewrite: (body) => {
        const answer = JSON.parse(body) as { error?: { code: string; detail: string } };
        if (answer.error?.code === 'lease_lost') answer.error.detail = 'wording of another kernel';
        return JSON.stringify(answer);
      },
    };
    const proxy = await startSteeringProxy(
      fixture.kernel.url,
      steerCommits('lands-reworded', 'drop_answer', reworded),
    );
    try {
      // A lease a loaded machine does not lapse before the retry (see the drop_answer case above).
      const { ran, errors, committed } = await buildOnce(proxy.url, 'lands-reworded', {
        leaseMs: 5000,
      });
      expect(errors).toEqual([]);
      expect(committed).toEqual([
        expect.objectContaining({ state: 'succeeded', result: 'lands-reworded' }),
      ]);
      expect(ran).toBe(1);
    } finally {
      await proxy.close();
    }
  });

  it('close({abort: true}) stops heartbeating a row whose commit is still on the wire', async () => {
    let heartbeats = 0;
    const steer = steerCommits('stuck-on-the-wire', 'stall');
    const proxy = await startSteeringProxy(fixture.kernel.url, (request) => {
      if (request.path.endsWith('/heartbeat')) heartbeats++;
      return steer(request);
    });
    try {
      let started = false;
      const closing = start(
        {
          build: () => {
            started = true;
            return 'stuck-on-the-wire';
          },
        },
        { url: proxy.url, leaseMs: 1000, timeoutMs: 20_000 },
      );
      await closing.ready;
      const created = await runs().create(
        scriptedRun('bypass', [{ tool_calls: [{ name: 'build' }] }, { final: 'done' }]),
      );
      await eventually(() => started, { what: 'the handler to run' });
      // The commit is on the wire and stalled; heartbeats go on meanwhile.
      await new Promise((resolve) => setTimeout(resolve, 800));
      await closing.close({ abort: true });
      const afterClose = heartbeats;
      // The row's lease lapses within a lease, and another executor runs it.
      const second: number[] = [];
      start({
        build: (_input, { attempt }) => {
          second.push(attempt);
          return 'built again';
        },
      });
      expect(await ended(created.id, 8000)).toMatchObject({ state: 'completed' });
      expect(second).toEqual([2]);
      expect(heartbeats).toBe(afterClose);
    } finally {
      await proxy.close();
    }
  });
});
