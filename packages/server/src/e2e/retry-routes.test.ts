import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type Deployment, sharedKernels, waitFor } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const all = await backends();

// biome-ignore lint/suspicious/noExplicitAny: tests read JSON answers loosely and assert on them.
type Loose = any;

function scripted(rounds: unknown[], extra: Record<string, unknown> = {}) {
  return { approval_mode: 'bypass', input: 'go', provider: { kind: 'scripted', rounds }, ...extra };
}

const stopHook = { stop: { tool: 'check_stop', timeout_ms: 30_000, max_continuations: 1 } };

async function runOf(d: Deployment, runId: string): Promise<Loose> {
  return (await d.member.get(`${d.ws}/runs/${runId}`)).body;
}

async function ended(d: Deployment, runId: string): Promise<Loose> {
  return waitFor(async () => {
    const run = await runOf(d, runId);
    return run.state !== 'running' && run;
  });
}

async function listedDecisions(d: Deployment, runId: string): Promise<string[]> {
  const listed = (await d.member.get(`${d.ws}/decisions`)).body.decisions;
  return listed.filter((x: Loose) => x.run_id === runId).map((x: Loose) => x.key);
}

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`retry routes over HTTP (${backend.name})`, () => {
    let d: Deployment;
    const kernels = sharedKernels();
    afterAll(() => kernels.close());
    afterEach(async () => {
      await d?.close();
    });

    it('a declined question retried asks again: listed, unclaimable, answered, and the run completes', async () => {
      d = await kernels.deploy(backend);
      const created = await d.member.post(
        `${d.ws}/runs`,
        scripted([
          { tool_calls: [{ name: 'ask', input: { prompt: 'Deploy?' }, on_failure: 'hold' }] },
          { final: 'deployed', expect: 'yes' },
        ]),
      );
      const runId = created.body.id;
      const task = `${d.ws}/runs/${runId}/tasks/t1`;
      const declined = await d.member.post(`${task}/resolution`, { outcome: 'failed' });
      expect(declined.body).toMatchObject({ state: 'failed', error: { code: 'declined' } });
      expect((await runOf(d, runId)).attention).toEqual([
        { reason: 'failure_hold', blocked_task_keys: ['t1'] },
      ]);
      const retried = await d.member.post(`${task}/retry`);
      expect(retried.status).toBe(200);
      expect(retried.body).toMatchObject({ kind: 'ask', state: 'awaiting_input', error: null });
      expect(retried.body.deadline_at).toBeGreaterThan(Date.now() + 23 * 3600_000);
      expect((await runOf(d, runId)).attention).toEqual([
        { reason: 'awaiting_human', blocked_task_keys: ['t1'] },
      ]);
      expect(await listedDecisions(d, runId)).toEqual(['t1']);
      const claim = await d.executor.post(`/executor_api/v1/runs/${runId}/tasks/t1/claim`);
      expect([claim.status, claim.body.error?.code]).toEqual([409, 'not_claimable_kind']);
      const answered = await d.member.post(`${task}/resolution`, { content: 'yes' });
      expect(answered.body.state).toBe('succeeded');
      expect(await ended(d, runId)).toMatchObject({ state: 'completed', final_answer: 'deployed' });
    });

    it('an invalid question retried answers 409 retry_refused; the hold stays until abandon', async () => {
      d = await kernels.deploy(backend);
      const created = await d.member.post(
        `${d.ws}/runs`,
        scripted([
          { tool_calls: [{ name: 'ask', input: { nope: 1 }, on_failure: 'hold' }] },
          { final: 'x' },
        ]),
      );
      const runId = created.body.id;
      const task = `${d.ws}/runs/${runId}/tasks/t1`;
      const before = (await d.member.get(task)).body;
      expect(before).toMatchObject({ kind: 'ask', state: 'failed' });
      expect(before.error.code).toBe('invalid_question');
      for (let i = 0; i < 2; i += 1) {
        const refused = await d.member.post(`${task}/retry`);
        expect([refused.status, refused.body.error?.code]).toEqual([409, 'retry_refused']);
        expect(refused.body.error.detail).toContain('cannot be asked again unchanged');
      }
      expect((await d.member.get(task)).body).toEqual(before);
      expect((await runOf(d, runId)).attention).toEqual([
        { reason: 'failure_hold', blocked_task_keys: ['t1'] },
      ]);
      const abandoned = await d.member.post(`${d.ws}/runs/${runId}/abandon`);
      expect(abandoned.body).toMatchObject({ state: 'failed', error: { code: 'abandoned' } });
    });

    it('a hook a deny rule refused is refused again on retry and never runs', async () => {
      d = await kernels.deploy(backend);
      const created = await d.member.post(
        `${d.ws}/runs`,
        scripted([{ final: 'answer' }], {
          approval_rules: [{ tool: 'check_stop', verdict: 'deny', origin: 'kernel', reason: 'no' }],
          lifecycle_hooks: stopHook,
        }),
      );
      const runId = created.body.id;
      const held = await waitFor(async () => {
        const run = await runOf(d, runId);
        return run.attention.length > 0 && run;
      });
      const key = held.attention[0].blocked_task_keys[0];
      const task = `${d.ws}/runs/${runId}/tasks/${key}`;
      const before = (await d.member.get(task)).body;
      expect(before).toMatchObject({ kind: 'hook', state: 'failed' });
      expect(before.error.code).toBe('approval_denied');
      const refused = await d.member.post(`${task}/retry`);
      expect([refused.status, refused.body.error?.code]).toEqual([409, 'retry_refused']);
      expect(refused.body.error.detail).toContain('no');
      expect((await d.member.get(task)).body).toEqual(before);
      const claim = await d.executor.post('/executor_api/v1/claim', { tool_names: ['check_stop'] });
      expect(claim.body.claim ?? null).toBeNull();
      const run = await runOf(d, runId);
      expect(run).toMatchObject({ state: 'running', final_answer: null });
      expect(run.attention).toEqual([{ reason: 'failure_hold', blocked_task_keys: [key] }]);
    });

    it('a hook a person denied retried parks again; once approved it runs and the run completes', async () => {
      d = await kernels.deploy(backend);
      const created = await d.member.post(
        `${d.ws}/runs`,
        scripted([{ final: 'reviewed' }], {
          approval_rules: [{ tool: 'check_stop', verdict: 'ask', origin: 'kernel' }],
          lifecycle_hooks: stopHook,
        }),
      );
      const runId = created.body.id;
      const parked = await waitFor(async () => {
        const [key] = await listedDecisions(d, runId);
        return key;
      });
      const task = `${d.ws}/runs/${runId}/tasks/${parked}`;
      const denied = await d.member.post(`${task}/deny`, { reason: 'not yet' });
      expect(denied.body).toMatchObject({ state: 'failed', error: { code: 'approval_denied' } });
      const retried = await d.member.post(`${task}/retry`);
      expect(retried.status).toBe(200);
      expect(retried.body).toMatchObject({ kind: 'hook', state: 'needs_approval', error: null });
      expect(await listedDecisions(d, runId)).toEqual([parked]);
      const claim = await d.executor.post('/executor_api/v1/claim', { tool_names: ['check_stop'] });
      expect(claim.body.claim ?? null).toBeNull();
      const approved = await d.member.post(`${task}/approve`);
      expect(approved.body.state).toBe('runnable');
      const taken = await waitFor(async () => {
        const c = await d.executor.post('/executor_api/v1/claim', { tool_names: ['check_stop'] });
        return c.body.claim;
      });
      await d.executor.post(`/executor_api/v1/runs/${runId}/tasks/${parked}/commit`, {
        claim_id: taken.claim_id,
        outcome: 'succeeded',
        result: { structured_content: { continue: false } },
      });
      expect(await ended(d, runId)).toMatchObject({ state: 'completed', final_answer: 'reviewed' });
    });
  });
}
