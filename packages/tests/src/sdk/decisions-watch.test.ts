import { createClient, type Decision, isFeedResyncError } from '@airlock/sdk';
import { beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/kernel.js';
import { useMemberKernel, within } from '../support/member-kernel.js';

const DAY = 24 * 60 * 60 * 1000;

/** A run whose one call parks for a person; it ends once the call is decided. */
const parkThenFinish = (to: string) => ({
  approval_mode: 'ask' as const,
  input: 'deploy it',
  provider: {
    kind: 'scripted' as const,
    rounds: [{ tool_calls: [{ name: 'deploy', input: { to } }] }, { final: 'done' }] as never,
  },
});

describe('watching decisions on a store whose retention pruned events', () => {
  let now = Date.now();
  let liveRun: string;
  let endedRun: string;
  const file = useMemberKernel({
    clock: () => now,
    parkTtlMs: 1000 * DAY,
    retention: { intervalMs: 10 * 365 * DAY },
  });
  const member = file.workspace;

  beforeAll(async () => {
    const kernel = file.kernel;
    const ws = member();
    liveRun = (await ws.runs.create(parkThenFinish('prod'))).id;
    await eventually(
      async () => (await ws.runs.run(liveRun).task('t1')).state === 'needs_approval',
      { what: 'the run to park' },
    );
    // A run that ended then: its events go with the windows (a live run's are kept whole).
    endedRun = (await ws.runs.create(parkThenFinish('qa'))).id;
    await eventually(
      async () => (await ws.runs.run(endedRun).task('t1')).state === 'needs_approval',
      { what: 'the second run to park' },
    );
    await ws.runs.run(endedRun).stop();
    // A hundred days on, a 90-day policy prunes the ended run and its events: after=0 is gone.
    now += 100 * DAY;
    const client = createClient({ url: kernel.url, token: kernel.workspace.tokens.member });
    const policy = { events_days: 90, runs_days: 90, audit_days: null };
    await client.call('retention.put', { workspace_id: kernel.workspace.id, ...policy });
    await kernel.airlock.kernel.pruner!.pruneNow();
    const retention = await client.call('retention.get', { workspace_id: kernel.workspace.id });
    expect(retention.pruned_through).toBeGreaterThan(0);
  });

  it("workspace.decisions yields what waits now, then follows new ones from the feed's head", async () => {
    const ws = member();
    const seen: string[] = [];
    let later: string | null = null;
    for await (const decision of ws.decisions) {
      seen.push(`${decision.run_id}/${decision.task_key}`);
      if (later === null) later = (await ws.runs.create(parkThenFinish('staging'))).id;
      if (seen.length === 2) break;
    }
    expect(seen).toEqual([`${liveRun}/t1`, `${later}/t1`]);
    await ws.runs.run(later!).stop();
  });

  it('run.decisions yields the parked call of a run whose first events were pruned, and ends with the run', async () => {
    const run = member().runs.run(liveRun);
    const seen: Decision[] = [];
    for await (const decision of run.decisions) {
      seen.push(decision);
      if (decision.isApproval()) await decision.deny({ reason: 'not today' });
    }
    expect(seen.map((decision) => decision.task_key)).toEqual(['t1']);
    expect((await run.get()).state).not.toBe('running');
  });

  it("a pruned run's feed ends with FeedResyncError, never a silent gap", async () => {
    const feed = member().runs.run(endedRun).feed({ after: 0 });
    try {
      const next = feed.next();
      await expect(next).rejects.toSatisfy(isFeedResyncError);
      await expect(next).rejects.toMatchObject({ code: 'feed_position_pruned' });
    } finally {
      feed.close();
    }
  });
});

describe('cancelling a decisions watcher', () => {
  const { workspace: member } = useMemberKernel();

  it('return() ends a watcher at once, while a next() waits for a decision that never comes', async () => {
    const watcher = member().decisions[Symbol.asyncIterator]();
    const pending = watcher.next();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await within(watcher.return!(), 2000)).toEqual({ done: true, value: undefined });
    expect(await within(pending, 2000)).toEqual({ done: true, value: undefined });
    expect(await watcher.next()).toEqual({ done: true, value: undefined });
  });

  it("a signal ends the workspace's and a run's watchers, as the loop waits", async () => {
    const ws = member();
    const run = (await ws.runs.create(parkThenFinish('prod'))).id;
    const controller = new AbortController();
    const watchers = [
      ws.decisions.watch({ signal: controller.signal }),
      ws.runs.run(run).decisions.watch({ signal: controller.signal }),
    ];
    for (const watcher of watchers) {
      expect((await watcher.next()).value).toMatchObject({ run_id: run, task_key: 't1' });
    }
    const pending = watchers.map((watcher) => watcher.next());
    await new Promise((resolve) => setTimeout(resolve, 200));
    controller.abort();
    for (const next of pending) {
      expect(await within(next, 2000)).toEqual({ done: true, value: undefined });
    }
    const aborted = ws.decisions.watch({ signal: controller.signal });
    expect(await within(aborted.next(), 2000)).toEqual({ done: true, value: undefined });
    await ws.runs.run(run).stop();
  });
});

describe('more decisions wait than a page holds', () => {
  const { workspace: member } = useMemberKernel();
  /** 17 runs of 64 parked writes: more rows than the largest page (1,000). */
  const RUNS = 17;
  const CALLS = 64;
  const waiting = RUNS * CALLS;

  beforeAll(async () => {
    const ws = member();
    for (let i = 0; i < RUNS; i += 1) {
      await ws.runs.create({
        approval_mode: 'ask',
        input: 'write them',
        provider: {
          kind: 'scripted',
          rounds: [
            {
              tool_calls: Array.from({ length: CALLS }, (_, call) => ({
                name: 'write',
                input: { path: `run-${i}/file-${call}.txt` },
              })),
            },
            { final: 'written' },
          ] as never,
        },
      });
    }
    await eventually(async () => (await ws.decisions.page({ limit: 1 })).total === waiting, {
      what: 'every call to park',
      timeoutMs: 30_000,
    });
  });

  const rows = (decisions: Decision[]) => decisions.map((d) => `${d.run_id}/${d.task_key}`);

  it('decisions.list() reads every page, and a limit reads only as far as it', async () => {
    const ws = member();
    const all = rows(await ws.decisions.list());
    expect(all).toHaveLength(waiting);
    expect(new Set(all).size).toBe(waiting);
    expect(rows(await ws.decisions.list({ limit: 1500 }))).toEqual(all);
    expect(rows(await ws.decisions.list({ limit: 150 }))).toEqual(all.slice(0, 150));
  });

  it('the workspace watcher yields every decision waiting when it starts', async () => {
    const controller = new AbortController();
    const seen = new Set<string>();
    const watching = (async () => {
      for await (const decision of member().decisions.watch({ signal: controller.signal })) {
        seen.add(`${decision.run_id}/${decision.task_key}`);
        if (seen.size === waiting) return;
      }
    })();
    try {
      await within(watching, 20_000);
    } finally {
      controller.abort();
    }
    expect(seen.size).toBe(waiting);
  });
});
