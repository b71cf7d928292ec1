import { afterEach, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from '../testing/harness.js';
import { backends } from '../testing/stores.js';
import { workspaceHead } from './events.js';
import { planningReader } from './query-plan.js';
import { eventsToPrune, runEventsToPrune } from './retention.js';

/**
 * The sweep's batch keeps every event of a run that has not ended, reads no
 * more rows than its limit whatever it keeps and whatever their types, and
 * (on SQLite, from its own query plan) walks the log's primary key with one
 * lookup of the run per row.
 */

const available = (await backends()).filter((backend) => backend.skip === null);

const parks = {
  approval_mode: 'ask',
  input: 'deploy it',
  provider: {
    kind: 'scripted',
    rounds: [{ tool_calls: [{ name: 'deploy', input: {} }] }, { final: 'done' }],
  },
};

describe.each(available)('the retention sweep on $name', (backend) => {
  let d: Deployment;
  afterEach(async () => {
    await d?.close();
  });

  async function parkedRun(): Promise<string> {
    const runId = (await d.agent.post(`${d.ws}/runs`, parks)).body.id as string;
    for (let i = 0; i < 200; i++) {
      const task = await d.member.get(`${d.ws}/runs/${runId}/tasks/t1`);
      if (task.body.state === 'needs_approval') return runId;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`run ${runId} never parked`);
  }

  it("leaves a live run's events out of every batch and reads at most the batch's size", async () => {
    d = await deploy(backend);
    const live = await parkedRun();
    const ended = await parkedRun();
    expect((await d.member.post(`${d.ws}/runs/${ended}/stop`)).status).toBe(200);
    const store = d.airlock.store;
    const through = await workspaceHead(store, d.workspaceId);
    const seen: { runId: string; seq: number }[] = [];
    let after = 0;
    let firstKeptAt: number | null = null;
    for (;;) {
      const batch = await eventsToPrune(store, {
        workspaceId: d.workspaceId,
        after,
        through,
        // Every type (a sweep never passes an empty list).
        types: { except: ['run.rule_set_fallback'] },
        limit: 2,
      });
      if (batch.scannedThrough === 0) break;
      expect(batch.rows.length).toBeLessThanOrEqual(2);
      expect(batch.scannedThrough).toBeGreaterThan(after);
      firstKeptAt ??= batch.firstKeptAt;
      for (const row of batch.rows) seen.push({ runId: row.run_id, seq: Number(row.seq) });
      after = batch.scannedThrough;
    }
    expect(after).toBe(through);
    expect(seen.some((row) => row.runId === ended)).toBe(true);
    expect(seen.some((row) => row.runId === live)).toBe(false);
    const liveEvents = (await d.member.get(`${d.ws}/runs/${live}/events?limit=100`)).body.events;
    expect(firstKeptAt).toBe(liveEvents[0].created_at);
  });

  it('covers at most its size of the log per batch when no event is of the types it takes', async () => {
    d = await deploy(backend);
    await parkedRun();
    const ended = await parkedRun();
    expect((await d.member.post(`${d.ws}/runs/${ended}/stop`)).status).toBe(200);
    const store = d.airlock.store;
    const through = await workspaceHead(store, d.workspaceId);
    expect(through).toBeGreaterThan(6);
    // How many events of the log a batch's range holds (of any type): what its window reads.
    const held = async (after: number, upTo: number) =>
      Number(
        (
          await store.db
            .selectFrom('run_events')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('workspace_id', '=', d.workspaceId)
            .where('seq', '>', after)
            .where('seq', '<=', upTo)
            .executeTakeFirstOrThrow()
        ).n,
      );
    let after = 0;
    let batches = 0;
    for (;;) {
      const batch = await eventsToPrune(store, {
        workspaceId: d.workspaceId,
        after,
        through,
        // A type none of these runs wrote: every row read is one the batch leaves.
        types: { only: ['run.rule_set_fallback'] },
        limit: 2,
      });
      if (batch.scannedThrough === 0) break;
      expect(batch.rows).toEqual([]);
      expect(batch.scannedThrough).toBeGreaterThan(after);
      // Before, one batch read the whole range looking for two events of the type.
      expect(await held(after, batch.scannedThrough)).toBeLessThanOrEqual(2);
      after = batch.scannedThrough;
      batches += 1;
    }
    expect(after).toBe(through);
    expect(batches).toBeGreaterThanOrEqual(Math.ceil(through / 2));
  });

  it.skipIf(backend.name !== 'sqlite')(
    "walks the log's primary key and looks each row's run up by its key",
    async () => {
      d = await deploy(backend);
      const { reader, plans } = planningReader(d.airlock.store);
      await eventsToPrune(reader, {
        workspaceId: d.workspaceId,
        after: 10,
        through: 1000,
        types: { only: ['task.edited'] },
        limit: 500,
      });
      const [plan, next] = await plans();
      expect(plan).toMatch(
        /SEARCH run_events USING INDEX sqlite_autoindex_run_events_1 \(workspace_id=\? AND seq>\? AND seq<\?\)/,
      );
      expect(plan).toMatch(/SEARCH runs USING INDEX sqlite_autoindex_runs_1 \(id=\?\)/);
      expect(plan).not.toMatch(/TEMP B-TREE|SCAN runs/);
      // A window with none of the types (this log has no event past 10) finds the next event by the key.
      expect(next).toMatch(
        /SEARCH run_events USING (COVERING )?INDEX sqlite_autoindex_run_events_1 \(workspace_id=\? AND seq>\?\)/,
      );
      expect(next).not.toMatch(/TEMP B-TREE/);
      // An ended run's kept events are read again by the run's own index, not the workspace's log.
      await runEventsToPrune(reader, {
        runId: 'run_x',
        after: 10,
        through: 1000,
        types: { only: ['task.edited'] },
        limit: 500,
      });
      const [byRun] = await plans();
      expect(byRun).toMatch(
        /SEARCH run_events USING INDEX run_events_by_run \(run_id=\? AND seq>\? AND seq<\?\)/,
      );
      expect(byRun).not.toMatch(/TEMP B-TREE/);
    },
  );
});
