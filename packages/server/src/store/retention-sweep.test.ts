import { afterEach, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from '../testing/harness.js';
import { backends } from '../testing/stores.js';
import { workspaceHead } from './events.js';
import { planningReader } from './query-plan.js';
import { eventsToPrune } from './retention.js';

/**
 * The sweep's batch keeps every event of a run that has not ended, reads no
 * more rows than its limit whatever it keeps, and (on SQLite, from its own
 * query plan) walks the log's primary key with one lookup of the run per row.
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
      const [plan] = await plans();
      expect(plan).toMatch(
        /SEARCH run_events USING INDEX sqlite_autoindex_run_events_1 \(workspace_id=\? AND seq>\? AND seq<\?\)/,
      );
      expect(plan).toMatch(/SEARCH runs USING INDEX sqlite_autoindex_runs_1 \(id=\?\)/);
      expect(plan).not.toMatch(/TEMP B-TREE|SCAN runs/);
    },
  );
});
