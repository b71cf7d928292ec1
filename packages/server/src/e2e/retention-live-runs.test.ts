import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type Deployment, deploy, waitFor } from '../testing/harness.js';
import { connect } from '../testing/sockets.js';
import { backends } from '../testing/stores.js';

/**
 * Retention never takes an event the kernel still reads back: a live run's
 * events stay, however old, under any window (a park waits a day, a hooked
 * session or a gateway run lives for weeks), and go with their window once
 * the run has ended.
 */

const all = await backends();
const DAY = 24 * 60 * 60 * 1000;
const EVENTS = '/agent_api/v1/hooks/events';
const root = mkdtempSync(join(tmpdir(), 'airlock-retention-live-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`retention and live runs (${backend.name})`, () => {
    let d: Deployment;
    afterEach(async () => {
      await d?.close();
    });

    it("keeps a live hooked run's edit through a one-day audit window, so the hook asking again is still allowed", async () => {
      let now = Date.now();
      d = await deploy(backend, {
        clock: () => now,
        retention: { exportDir: mkdtempSync(join(root, 'edit-')), intervalMs: 10 * 365 * DAY },
      });
      await d.agent.put('/agent_api/v1/profile/configuration', {
        approval_mode: 'rules',
        approval_rules: [{ tool: 'Bash', path: 'command', match: 'git push*', verdict: 'ask' }],
      });
      const push = (extra: Record<string, unknown> = {}) =>
        d.agent.post(EVENTS, {
          agent: 'claude-code',
          session_id: 's-long',
          event: 'pre_tool',
          tool_name: 'Bash',
          tool_input: { command: 'git push origin main' },
          tool_use_id: 'tu-1',
          ...extra,
        });
      const parked = await push();
      expect(parked.body).toMatchObject({ verdict: 'wait', task_key: 't1' });
      const runId = parked.body.run_id as string;
      const approved = await d.member.post(`${d.ws}/runs/${runId}/tasks/t1/approve`, {
        tool_input: { command: 'git push origin feature' },
      });
      expect(approved.body.state).toBe('runnable');

      now += 2 * DAY;
      await d.member.put(`${d.ws}/retention`, { events_days: 1, runs_days: 1, audit_days: 1 });
      await d.airlock.kernel.pruner!.pruneNow();
      expect((await d.member.get(`${d.ws}/runs/${runId}`)).body.state).toBe('running');

      // The agent's hook asks again with what its model composed: the edit is read back.
      const answer = await push({ task_key: 't1' });
      expect(answer.body).toMatchObject({
        verdict: 'allow',
        task_key: 't1',
        updated_input: { command: 'git push origin feature' },
      });
      const events = (await d.member.get(`${d.ws}/runs/${runId}/events?limit=100`)).body.events;
      expect(events.map((event: { type: string }) => event.type)).toContain('task.edited');
    });

    it('prunes what it kept for a run once the run has ended, in the next pass', async () => {
      let now = Date.now();
      d = await deploy(backend, {
        clock: () => now,
        // The park outlasts the windows, as a long-lived hooked session or gateway run does.
        parkTtlMs: 30 * DAY,
        retention: {
          exportDir: mkdtempSync(join(root, 'ended-')),
          intervalMs: 10 * 365 * DAY,
          batchRows: 2,
        },
      });
      // As below: the first tick's pass happens now, not after the clock moves.
      await d.airlock.kernel.pruner!.pruneNow();
      const created = await d.agent.post(`${d.ws}/runs`, {
        approval_mode: 'ask',
        input: 'deploy it',
        provider: {
          kind: 'scripted',
          rounds: [{ tool_calls: [{ name: 'deploy', input: {} }] }, { final: 'done' }],
        },
      });
      const runId = created.body.id as string;
      const state = async () => (await d.member.get(`${d.ws}/runs/${runId}/tasks/t1`)).body.state;
      for (let i = 0; i < 200 && (await state()) !== 'needs_approval'; i++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(await state()).toBe('needs_approval');
      const before = (await d.member.get(`${d.ws}/runs/${runId}/events?limit=100`)).body.events;

      now += 10 * DAY;
      await d.member.put(`${d.ws}/retention`, { events_days: 1, runs_days: null, audit_days: 1 });
      const kept = await d.airlock.kernel.pruner!.pruneNow();
      expect(kept).toMatchObject({ events: 0, audit: 0 });
      expect((await d.member.get(`${d.ws}/runs/${runId}/events?limit=100`)).body.events).toEqual(
        before,
      );

      expect((await d.member.post(`${d.ws}/runs/${runId}/stop`)).body.state).toBe('canceled');
      now += 2 * DAY;
      const pruned = await d.airlock.kernel.pruner!.pruneNow();
      expect(pruned.events).toBeGreaterThan(0);
      expect(pruned.audit).toBeGreaterThan(0);
      // Reading the ended run's events from the start now says what went, and where to resume.
      const gone = await d.member.get(`${d.ws}/runs/${runId}/events?limit=100`);
      expect(gone.status).toBe(410);
      expect(gone.body.error.code).toBe('feed_position_pruned');
      const { pruned_through } = (await d.member.get(`${d.ws}/retention`)).body;
      expect(gone.body.error.detail).toContain(`after=${pruned_through}`);
      const rest = await d.member.get(`${d.ws}/runs/${runId}/events?after=${pruned_through}`);
      expect(rest.status).toBe(200);
      expect(rest.body.events).toEqual([]);
    });

    it('an ended run whose audit records went says so on its feed and its event listing, even with every other event kept', async () => {
      let now = Date.now();
      d = await deploy(backend, {
        clock: () => now,
        retention: { exportDir: mkdtempSync(join(root, 'audit-')), intervalMs: 10 * 365 * DAY },
      });
      // The kernel's first clock tick starts a pass; on a loaded machine it can come after the
      // clock moves and prune what the pass below counts. Passing now leaves none for it to start.
      await d.airlock.kernel.pruner!.pruneNow();
      const created = await d.agent.post(`${d.ws}/runs`, {
        approval_mode: 'bypass',
        input: 'say hi',
        provider: { kind: 'scripted', rounds: [{ final: 'hi' }] },
      });
      const runId = created.body.id as string;
      for (let i = 0; i < 200; i++) {
        if ((await d.member.get(`${d.ws}/runs/${runId}`)).body.state !== 'running') break;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect((await d.member.get(`${d.ws}/runs/${runId}`)).body.state).toBe('completed');
      now += 2 * DAY;
      await d.member.put(`${d.ws}/retention`, {
        events_days: null,
        runs_days: null,
        audit_days: 1,
      });
      expect((await d.airlock.kernel.pruner!.pruneNow()).audit).toBeGreaterThan(0);

      const listed = await d.member.get(`${d.ws}/runs/${runId}/events?after=0`);
      expect(listed.status).toBe(410);
      expect(listed.body.error.code).toBe('feed_position_pruned');
      const socket = await connect(`${d.url}${d.ws}/feed?run_id=${runId}&after=0`, d.tokens.member);
      const first = await waitFor(async () => socket.messages[0], { what: 'a first message' });
      socket.close();
      expect(first).toMatchObject({ type: 'resync', code: 'feed_position_pruned', after: 0 });
    });
  });
}
