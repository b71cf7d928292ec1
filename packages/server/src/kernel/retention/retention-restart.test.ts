import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type EventLogRead, watchEventLogReads } from '../../store/retention-reads.js';
import { type Deployment, deploy } from '../../testing/harness.js';
import { endedRun, eventsOf, parkedRun } from '../../testing/retention-runs.js';
import { backends } from '../../testing/stores.js';
import { type RetentionOptions, RetentionPruner } from './retention.js';

/**
 * How far retention swept each kind of a workspace's events, and the live
 * runs whose events it kept, are kept in the store: a kernel started again
 * (an upgrade, a crash, a deploy) reads only the log written since the last
 * pass of any process, instead of walking again from the log's start (audit
 * records) or from the first event a long-lived run kept (lifecycle events);
 * and what it kept goes once its run ends, whichever process sees that.
 */

const DAY = 24 * 60 * 60 * 1000;
const root = mkdtempSync(join(tmpdir(), 'airlock-retention-restart-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const available = (await backends()).filter((backend) => backend.skip === null);

describe.each(available)('retention resumes where the last process swept, on $name', (backend) => {
  let d: Deployment;
  let now: number;
  afterEach(async () => {
    await d?.close();
  });

  let retention: RetentionOptions;

  async function start(name: string): Promise<void> {
    now = Date.now();
    retention = {
      exportDir: mkdtempSync(join(root, `${name}-`)),
      intervalMs: 10 * 365 * DAY,
      batchRows: 2,
    };
    // The park outlasts the windows, as a long-lived hooked session or gateway run does.
    d = await deploy(backend, { clock: () => now, parkTtlMs: 30 * DAY, retention });
    // The first clock tick's pass happens now, not after the clock moves.
    await d.airlock.kernel.pruner!.pruneNow();
  }

  /**
   * Runs a pass of a new kernel process's pruner (nothing in memory from
   * the passes before) and answers what it pruned and the batches of the
   * log it read. A pruner of its own rather than a restarted kernel's,
   * whose first clock tick starts a pass this could not watch.
   */
  async function passOfNewProcess() {
    const pruner = new RetentionPruner(d.airlock.kernel.context, retention);
    const watch = watchEventLogReads(d.airlock.store);
    try {
      const report = await pruner.pruneNow();
      return { report, reads: watch.reads };
    } finally {
      watch.stop();
      await pruner.stop();
    }
  }

  /** How far a pass's batches by the log's key read, for a kind of events. */
  function reach(reads: readonly EventLogRead[], kind: 'events' | 'audit'): number {
    const ends = reads.filter((read) => read.by === 'log' && read.kind === kind);
    return Math.max(0, ...ends.map((read) => read.through));
  }

  it('a new kernel process reads nothing again, and prunes what the last one kept once its run ends', async () => {
    await start('restart');
    const live = await parkedRun(d);
    const liveEvents = await eventsOf(d, live);
    await endedRun(d);
    await endedRun(d);
    now += 10 * DAY;
    await d.member.put(`${d.ws}/retention`, { events_days: 1, runs_days: null, audit_days: 1 });
    const first = await passOfNewProcess();
    expect(first.report.events).toBeGreaterThan(0);
    expect(first.report.audit).toBeGreaterThan(0);
    const swept = { events: reach(first.reads, 'events'), audit: reach(first.reads, 'audit') };

    // Nothing was written since and the run is still open: a new process's first pass reads
    // no batch. Before, it read the audit records from the log's start again, and the
    // lifecycle events from the open run's first one.
    const idle = await passOfNewProcess();
    expect(idle.report).toEqual({ events: 0, runs: 0, audit: 0 });
    expect(idle.reads).toEqual([]);
    expect(await eventsOf(d, live)).toEqual(liveEvents);

    await endedRun(d);
    expect((await d.member.post(`${d.ws}/runs/${live}/stop`)).status).toBe(200);
    now += 2 * DAY;
    const ended = await passOfNewProcess();
    expect(ended.report.events).toBeGreaterThan(0);
    expect(ended.report.audit).toBeGreaterThan(0);
    for (const read of ended.reads.filter((r) => r.by === 'log')) {
      expect(read.after).toBeGreaterThanOrEqual(swept[read.kind === 'audit' ? 'audit' : 'events']);
    }
    // The kept events of the run that ended are read by its own index, and go.
    expect(ended.reads.filter((r) => r.by === 'run').length).toBeGreaterThan(0);
    expect(await eventsOf(d, live)).toEqual([]);
  });

  it('a window turned off forgets the sweep: set again, the log is read from its start', async () => {
    await start('off');
    await endedRun(d);
    now += 10 * DAY;
    await d.member.put(`${d.ws}/retention`, {
      events_days: null,
      runs_days: null,
      audit_days: 1,
    });
    expect((await passOfNewProcess()).report.audit).toBeGreaterThan(0);
    await d.member.put(`${d.ws}/retention`, {
      events_days: null,
      runs_days: null,
      audit_days: null,
    });
    await passOfNewProcess();
    await d.member.put(`${d.ws}/retention`, {
      events_days: null,
      runs_days: null,
      audit_days: 1,
    });
    const again = await passOfNewProcess();
    expect(again.reads.filter((r) => r.by === 'log' && r.kind === 'audit')[0]?.after).toBe(0);
  });
});
