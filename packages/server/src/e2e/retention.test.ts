import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type Deployment, deploy, waitFor } from '../testing/harness.js';
import { connect, type Message } from '../testing/sockets.js';
import { backends } from '../testing/stores.js';

const all = await backends();
const DAY = 24 * 60 * 60 * 1000;
const root = mkdtempSync(join(tmpdir(), 'airlock-retention-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const parkThenFinish = {
  approval_mode: 'ask',
  input: 'deploy it',
  provider: {
    kind: 'scripted',
    rounds: [{ tool_calls: [{ name: 'deploy', input: { to: 'prod' } }] }, { final: 'gave up' }],
  },
};

/** The export files of a workspace, each as its parsed JSON lines. */
function exported(dir: string, workspaceId: string, kind: string): Message[] {
  const folder = join(dir, workspaceId);
  return readdirSync(folder)
    .filter((name) => name.startsWith(`${kind}-`) && name.endsWith('.jsonl'))
    .flatMap((name) =>
      readFileSync(join(folder, name), 'utf8')
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as Message),
    );
}

async function audit(d: Deployment, runId?: string): Promise<Message[]> {
  const path = runId ? `${d.ws}/runs/${runId}/audit` : `${d.ws}/audit`;
  const answer = await fetch(`${d.url}${path}?limit=10000`, {
    headers: { authorization: `Bearer ${d.tokens.member}` },
  });
  const text = await answer.text();
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Message);
}

/** The first message a feed socket receives, and how it closed if it did. */
async function firstMessage(d: Deployment, query: string): Promise<Message> {
  const socket = await connect(`${d.url}${d.ws}/feed?${query}`, d.tokens.member);
  const first = await waitFor(async () => socket.messages[0], { what: 'a first feed message' });
  socket.close();
  return first;
}

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`retention (${backend.name})`, () => {
    let d: Deployment;
    afterEach(async () => {
      await d?.close();
    });

    it('validates a policy with every problem named, and changes nothing', async () => {
      d = await deploy(backend, { retention: { exportDir: mkdtempSync(join(root, 'x-')) } });
      const path = `${d.ws}/retention`;
      expect((await d.member.get(path)).body).toMatchObject({
        events_days: null,
        runs_days: null,
        audit_days: null,
        pruned_through: 0,
      });
      const bad = await d.member.put(path, {
        events_days: 0,
        runs_days: '90',
        audit_days: 40_000,
        keep: true,
      });
      expect(bad.status).toBe(400);
      expect(bad.body.error.code).toBe('invalid_input');
      const pointers = bad.body.error.problems.map((p: { pointer: string }) => p.pointer).sort();
      expect(pointers).toEqual(['', '/audit_days', '/events_days', '/runs_days']);
      expect((await d.member.get(path)).body.updated_at).toBeNull();
      expect(
        (await d.agent.put(path, { events_days: 1, runs_days: 1, audit_days: 1 })).status,
      ).toBe(403);
      const good = await d.member.put(path, { events_days: 90, runs_days: 90, audit_days: 365 });
      expect(good.status).toBe(200);
      expect(good.body).toMatchObject({ events_days: 90, runs_days: 90, audit_days: 365 });
      expect(good.body.updated_by).toMatch(/^member:/);
    });

    it('keeps an ended run while an executor still runs its call, and prunes it once the call is committed', async () => {
      const exportDir = mkdtempSync(join(root, 'claimed-'));
      d = await deploy(backend, { retention: { exportDir, intervalMs: 10 * 365 * DAY } });
      const created = await d.agent.post(`${d.ws}/runs`, {
        approval_mode: 'bypass',
        input: 'run the job',
        provider: {
          kind: 'scripted',
          rounds: [{ tool_calls: [{ name: 'long_job', input: {} }] }, { final: 'done' }],
        },
      });
      const runId = created.body.id as string;
      const claim = await d.executor.post('/executor_api/v1/claim', { lease_ms: 600_000 });
      expect(claim.body.claim.task.key).toBe('t1');
      // A stop cancels only rows not yet started: the claimed call goes on running.
      expect((await d.member.post(`${d.ws}/runs/${runId}/stop`)).body.state).toBe('canceled');
      // The run ended 100 days ago as far as retention reads it; the lease is still live.
      const endedLongAgo = () =>
        d.airlock.store.db
          .updateTable('runs')
          .set({ ended_at: Date.now() - 100 * DAY })
          .where('id', '=', runId)
          .execute();
      await endedLongAgo();
      await d.member.put(`${d.ws}/retention`, {
        events_days: null,
        runs_days: 90,
        audit_days: null,
      });
      expect((await d.airlock.kernel.pruner!.pruneNow()).runs).toBe(0);
      const committed = await d.executor.post(`/executor_api/v1/runs/${runId}/tasks/t1/commit`, {
        claim_id: claim.body.claim.claim_id,
        outcome: 'succeeded',
        result: { ok: true },
      });
      expect(committed.status).toBe(200);
      await endedLongAgo();
      expect((await d.airlock.kernel.pruner!.pruneNow()).runs).toBe(1);
      const [line] = exported(exportDir, d.workspaceId, 'runs');
      expect(line?.tasks[0]).toMatchObject({ key: 't1', state: 'succeeded' });
    });

    it('prunes old events, ended runs and audit records in small batches, exporting them first; the feed says resync', async () => {
      let now = Date.now();
      const exportDir = mkdtempSync(join(root, 'exports-'));
      d = await deploy(backend, {
        clock: () => now,
        // The live run's park outlasts every window (as a long hooked session or gateway run does).
        parkTtlMs: 1000 * DAY,
        retention: { exportDir, batchRows: 3, batchRuns: 1, intervalMs: 10 * 365 * DAY },
      });
      // Two runs that park, are denied by a person, and end.
      const old: string[] = [];
      for (let i = 0; i < 2; i++) {
        const created = await d.agent.post(`${d.ws}/runs`, parkThenFinish);
        const runId = created.body.id as string;
        await waitFor(async () => {
          const task = await d.member.get(`${d.ws}/runs/${runId}/tasks/t1`);
          return task.body.state === 'needs_approval';
        });
        expect((await d.member.post(`${d.ws}/runs/${runId}/tasks/t1/deny`)).status).toBe(200);
        await waitFor(
          async () => (await d.member.get(`${d.ws}/runs/${runId}`)).body.state !== 'running',
        );
        old.push(runId);
      }
      const auditBefore = await audit(d);
      const oldAudit = auditBefore.filter((record) => old.includes(record.run_id));
      expect(oldAudit.map((r) => r.event)).toContain('task.denied');

      now += 100 * DAY;
      const live = (await d.agent.post(`${d.ws}/runs`, parkThenFinish)).body.id as string;
      await waitFor(async () => {
        const task = await d.member.get(`${d.ws}/runs/${live}/tasks/t1`);
        return task.body.state === 'needs_approval';
      });
      await d.member.put(`${d.ws}/retention`, { events_days: 90, runs_days: 90, audit_days: 365 });
      const first = await d.airlock.kernel.pruner!.pruneNow();
      expect(first.runs).toBe(2);
      expect(first.events).toBeGreaterThan(3);

      for (const runId of old) {
        expect((await d.member.get(`${d.ws}/runs/${runId}`)).status).toBe(404);
      }
      // The audit trail of the pruned runs is intact, tool and rule included.
      const auditAfter = await audit(d);
      expect(auditAfter.filter((record) => old.includes(record.run_id))).toEqual(oldAudit);
      // The live run is untouched.
      expect((await d.member.get(`${d.ws}/runs/${live}/tasks/t1`)).body.state).toBe(
        'needs_approval',
      );
      expect(
        (await d.member.get(`${d.ws}/runs/${live}/events?limit=100`)).body.events.length,
      ).toBeGreaterThan(0);
      // What went was exported first: each run with its tasks, its events.
      const runs = exported(exportDir, d.workspaceId, 'runs');
      expect(runs.map((line) => line.run.id).sort()).toEqual([...old].sort());
      expect(runs[0]!.tasks[0]).toMatchObject({ key: 't1', tool_name: 'deploy' });
      const events = exported(exportDir, d.workspaceId, 'events');
      expect(
        events.some((event) => event.type === 'run.created' && old.includes(event.run_id)),
      ).toBe(true);

      const policy = (await d.member.get(`${d.ws}/retention`)).body;
      expect(policy.pruned_through).toBeGreaterThan(0);
      // A subscriber resuming before the pruned position is told to resynchronise, not skipped ahead.
      const resync = await firstMessage(d, 'after=0');
      expect(resync).toMatchObject({ type: 'resync', code: 'feed_position_pruned', after: 0 });
      expect(resync.detail).toContain(`after=${policy.pruned_through}`);
      expect(await firstMessage(d, `after=${policy.pruned_through}`)).toMatchObject({
        type: 'ready',
      });
      // One live run's feed from the start is whole: nothing of it was pruned.
      expect(await firstMessage(d, `run_id=${live}&after=0`)).toMatchObject({ type: 'ready' });

      now += 300 * DAY;
      const second = await d.airlock.kernel.pruner!.pruneNow();
      expect(second.audit).toBe(oldAudit.length);
      expect((await audit(d)).filter((record) => old.includes(record.run_id))).toEqual([]);
      // The audit export holds exactly what `airlock audit export` read before.
      const auditExport = exported(exportDir, d.workspaceId, 'audit');
      expect(auditExport.filter((record) => old.includes(record.run_id))).toEqual(oldAudit);
      // The live run's events are now 300 days old, past every window, and all kept while it runs:
      // the kernel reads some back (an edit, a recorded call), and its feed from the start is whole.
      expect((await d.member.get(`${d.ws}/runs/${live}`)).body.state).toBe('running');
      expect(await firstMessage(d, `run_id=${live}&after=0`)).toMatchObject({ type: 'ready' });
    });
  });
}
