import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type EventLogRead, watchEventLogReads } from '../../store/retention-reads.js';
import { type Deployment, deploy } from '../../testing/harness.js';
import { endedRun, eventsOf, parkedRun } from '../../testing/retention-runs.js';
import { backends } from '../../testing/stores.js';

/**
 * A pass reads only the log written since the last one, for each kind of
 * events (lifecycle events and audit records, each by its own window): a run
 * kept open, or an audit window shorter than the events window, no longer
 * makes every pass read again the log it already swept (on SQLite, a long
 * read on the kernel's only thread). What a live run kept is remembered by
 * run and goes, read by the run's own index, once the run has ended, also
 * in a new kernel process (retention-restart.test.ts: it reads nothing again).
 */

const DAY = 24 * 60 * 60 * 1000;
const root = mkdtempSync(join(tmpdir(), 'airlock-retention-resume-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const available = (await backends()).filter((backend) => backend.skip === null);

describe.each(available)('retention resumes where it swept, on $name', (backend) => {
  let d: Deployment;
  let now: number;
  afterEach(async () => {
    await d?.close();
  });

  async function start(name: string): Promise<void> {
    now = Date.now();
    d = await deploy(backend, {
      clock: () => now,
      // The park outlasts the windows, as a long-lived hooked session or gateway run does.
      parkTtlMs: 30 * DAY,
      retention: {
        exportDir: mkdtempSync(join(root, `${name}-`)),
        intervalMs: 10 * 365 * DAY,
        batchRows: 2,
      },
    });
    // The first clock tick's pass happens now, not after the clock moves.
    await d.airlock.kernel.pruner!.pruneNow();
  }

  /** Runs a pass and answers what it pruned and the batches of the log it read. */
  async function pass() {
    const watch = watchEventLogReads(d.airlock.store);
    try {
      const report = await d.airlock.kernel.pruner!.pruneNow();
      return { report, reads: watch.reads };
    } finally {
      watch.stop();
    }
  }

  /** How far a pass's batches by the log's key read, for a kind of events. */
  function reach(reads: readonly EventLogRead[], kind: 'events' | 'audit'): number {
    const ends = reads.filter((read) => read.by === 'log' && read.kind === kind);
    return Math.max(0, ...ends.map((read) => read.through));
  }

  it('reads nothing again while a run stays open, and prunes what it kept once it ends', async () => {
    await start('open');
    const live = await parkedRun(d);
    const liveEvents = await eventsOf(d, live);
    await endedRun(d);
    await endedRun(d);
    now += 10 * DAY;
    await d.member.put(`${d.ws}/retention`, { events_days: 1, runs_days: null, audit_days: 1 });

    const first = await pass();
    expect(first.report.events).toBeGreaterThan(0);
    expect(first.report.audit).toBeGreaterThan(0);
    expect(await eventsOf(d, live)).toEqual(liveEvents);
    const swept = { events: reach(first.reads, 'events'), audit: reach(first.reads, 'audit') };
    expect(swept.events).toBeGreaterThan(0);
    expect(swept.audit).toBeGreaterThan(0);

    // Nothing was written since and the run is still open: the next pass reads no batch at all.
    // Before, it read again from the open run's first event (events) and from the log's start (audit).
    const idle = await pass();
    expect(idle.report).toEqual({ events: 0, runs: 0, audit: 0 });
    expect(idle.reads).toEqual([]);
    expect(await eventsOf(d, live)).toEqual(liveEvents);

    // Newer work, then the open run ends: its kept events go, read by its own index, and the
    // log's batches start where the last pass stopped.
    await endedRun(d);
    expect((await d.member.post(`${d.ws}/runs/${live}/stop`)).status).toBe(200);
    now += 2 * DAY;
    const ended = await pass();
    expect(ended.report.events).toBeGreaterThan(0);
    expect(ended.report.audit).toBeGreaterThan(0);
    for (const read of ended.reads.filter((r) => r.by === 'log')) {
      expect(read.after).toBeGreaterThanOrEqual(swept[read.kind === 'audit' ? 'audit' : 'events']);
    }
    expect(ended.reads.filter((r) => r.by === 'run').length).toBeGreaterThan(0);
    expect(await eventsOf(d, live)).toEqual([]);
    // The stored mark moved past the run: a new process starts there.
    const mark = await d.airlock.store.db
      .selectFrom('retention_policies')
      .select('events_pruned_before')
      .where('workspace_id', '=', d.workspaceId)
      .executeTakeFirstOrThrow();
    expect(Number(mark.events_pruned_before)).toBe(now - DAY);
  });

  it('a new kernel process prunes what the last one kept for a run once it ends', async () => {
    await start('restart');
    const live = await parkedRun(d);
    const liveEvents = await eventsOf(d, live);
    await endedRun(d);
    now += 10 * DAY;
    await d.member.put(`${d.ws}/retention`, { events_days: 1, runs_days: null, audit_days: 1 });
    const first = await pass();
    expect(first.report.events).toBeGreaterThan(0);
    expect(await eventsOf(d, live)).toEqual(liveEvents);

    await d.restart();
    await d.airlock.kernel.pruner!.pruneNow();
    expect(await eventsOf(d, live)).toEqual(liveEvents);
    expect((await d.member.post(`${d.ws}/runs/${live}/stop`)).status).toBe(200);
    now += 2 * DAY;
    const ended = await pass();
    expect(ended.report.events).toBeGreaterThan(0);
    expect(ended.report.audit).toBeGreaterThan(0);
    expect(await eventsOf(d, live)).toEqual([]);
  });
});
