import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type Deployment, putOverlay, sharedKernels, waitFor } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const all = await backends();

/** A scripted standalone run body. */
function scripted(
  mode: 'bypass' | 'ask' | 'rules',
  rounds: unknown[],
  extra: Record<string, unknown> = {},
) {
  return {
    approval_mode: mode,
    input: 'do the thing',
    provider: { kind: 'scripted', rounds },
    ...extra,
  };
}

/** Claims and commits every runnable row of a run with a result per tool, until the run ends. */
async function executeUntilDone(
  d: Deployment,
  runId: string,
  result = (name: string) => `${name} ok`,
) {
  return waitFor(
    async () => {
      const inbox = await d.executor.get('/executor_api/v1/inbox');
      for (const item of inbox.body.items) {
        if (item.kind !== 'tool' || item.run_id !== runId) continue;
        const claim = await d.executor.post(
          `/executor_api/v1/runs/${item.run_id}/tasks/${item.task_key}/claim`,
        );
        if (claim.status !== 200) continue;
        await d.executor.post(
          `/executor_api/v1/runs/${item.run_id}/tasks/${item.task_key}/commit`,
          {
            claim_id: claim.body.claim_id,
            outcome: 'succeeded',
            result: result(item.tool_name),
          },
        );
      }
      const run = await d.member.get(`${d.ws}/runs/${runId}`);
      return run.body.state !== 'running' ? run.body : null;
    },
    { what: `run ${runId} to end` },
  );
}

async function modelReads(d: Deployment, runId: string): Promise<string[]> {
  const events = await d.member.get(`${d.ws}/runs/${runId}/events?limit=1000`);
  return events.body.events
    .filter((e: { type: string }) => e.type === 'run.model_read')
    .flatMap((e: { data: { fed: { content: string }[] } }) => e.data.fed.map((f) => f.content));
}

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`approval flow over REST (${backend.name})`, () => {
    let d: Deployment;
    const kernels = sharedKernels();
    afterAll(() => kernels.close());
    afterEach(async () => {
      await d?.close();
    });

    it('bypass: grants, runs on the executor, and the model reads the result', async () => {
      d = await kernels.deploy(backend);
      const created = await d.agent.post(
        `${d.ws}/runs`,
        scripted('bypass', [
          { tool_calls: [{ name: 'bash', input: { command: 'ls' } }] },
          { final: 'listed', expect: 'bash ok' },
        ]),
      );
      expect(created.status).toBe(201);
      expect(created.body.agent_application_id).toBe(d.appId);
      const run = await executeUntilDone(d, created.body.id);
      expect(run).toMatchObject({ state: 'completed', final_answer: 'listed' });
      const tasks = await d.member.get(`${d.ws}/runs/${created.body.id}/tasks`);
      expect(tasks.body.tasks[0]).toMatchObject({
        origin: 'model',
        state: 'succeeded',
        decision: { outcome: 'granted', granted_by: 'mode' },
      });
    });

    it('bypass: a deny rule still refuses, and the model reads the reason', async () => {
      d = await kernels.deploy(backend);
      const created = await d.member.post(
        `${d.ws}/runs`,
        scripted(
          'bypass',
          [
            { tool_calls: [{ name: 'bash', input: { command: 'git push --force' } }] },
            { final: 'gave up', expect: ['approval_denied', 'rewrites history'] },
          ],
          {
            approval_rules: [
              {
                tool: 'bash',
                path: 'command',
                match: '*push*--force*',
                verdict: 'deny',
                reason: 'rewrites history',
              },
            ],
          },
        ),
      );
      expect(created.body).toMatchObject({ state: 'completed', final_answer: 'gave up' });
    });

    it('rules: unmatched is refused as data; allowed runs; ask parks', async () => {
      d = await kernels.deploy(backend);
      const created = await d.agent.post(
        `${d.ws}/runs`,
        scripted(
          'rules',
          [
            {
              tool_calls: [
                { name: 'wrte', input: { path: 'a' } },
                { name: 'bash', input: { command: 'ls -la' } },
                { name: 'bash', input: { command: 'make' } },
              ],
            },
            { final: 'done', expect: ['no approval rule allows wrte', 'bash ok'] },
          ],
          {
            approval_rules: [
              { tool: 'bash', path: 'command', match: 'ls*', verdict: 'allow' },
              { tool: 'bash', path: 'command', match: 'make*', verdict: 'ask' },
            ],
          },
        ),
      );
      const runId = created.body.id;
      expect(created.body.attention).toEqual([
        { reason: 'approval_required', blocked_task_keys: ['t3'] },
      ]);
      const tasks = (await d.member.get(`${d.ws}/runs/${runId}/tasks`)).body.tasks;
      expect(tasks.map((t: { state: string }) => t.state)).toEqual([
        'failed',
        'runnable',
        'needs_approval',
      ]);
      expect(tasks[2].effect_profile).toMatchObject({ tool_name: 'bash', approval_mode: 'rules' });
      expect(tasks[2].addressee).toBe(d.appId);
      const approved = await d.member.post(`${d.ws}/runs/${runId}/tasks/t3/approve`);
      expect(approved.status).toBe(200);
      expect(approved.body).toMatchObject({
        state: 'runnable',
        decided_by: expect.stringMatching(/^member:/),
      });
      const run = await executeUntilDone(d, runId);
      expect(run).toMatchObject({ state: 'completed', final_answer: 'done' });
    });

    it('ask: parks, a person denies, and the model reads the refusal', async () => {
      d = await kernels.deploy(backend);
      const created = await d.agent.post(
        `${d.ws}/runs`,
        scripted('ask', [
          { tool_calls: [{ name: 'deploy', input: { env: 'prod' } }] },
          { final: 'ok, not deploying', expect: ['approval_denied', 'not on a Friday'] },
        ]),
      );
      const runId = created.body.id;
      expect(created.body.state).toBe('running');
      const inbox = await d.executor.get('/executor_api/v1/inbox');
      expect(inbox.body.items).toEqual([
        expect.objectContaining({ kind: 'approval', run_id: runId, task_key: 't1' }),
      ]);
      const claim = await d.executor.post(`/executor_api/v1/runs/${runId}/tasks/t1/claim`);
      expect(claim.status).toBe(409);
      expect(claim.body.error.code).toBe('not_claimable_kind');
      const denied = await d.member.post(`${d.ws}/runs/${runId}/tasks/t1/deny`, {
        reason: 'not on a Friday',
      });
      expect(denied.body).toMatchObject({
        state: 'failed',
        error: { code: 'approval_denied', detail: 'not on a Friday' },
      });
      const run = await waitFor(async () => {
        const r = await d.member.get(`${d.ws}/runs/${runId}`);
        return r.body.state === 'completed' ? r.body : null;
      });
      expect(run.final_answer).toBe('ok, not deploying');
      const events = (await d.member.get(`${d.ws}/runs/${runId}/events`)).body.events;
      const denial = events.find((e: { type: string }) => e.type === 'task.denied');
      expect(denial.principal).toMatch(/^member:cred_/);
      expect(events.map((e: { type: string }) => e.type)).toContain('run.attention_required');
    });

    it('the park clock expires a call and the model reads that nobody approved it', async () => {
      d = await kernels.deploy(backend, { parkTtlMs: 300 });
      const created = await d.agent.post(
        `${d.ws}/runs`,
        scripted('ask', [
          { tool_calls: [{ name: 'deploy', input: {} }] },
          { final: 'expired', expect: 'Nobody approved this tool call before it expired.' },
        ]),
      );
      const run = await waitFor(async () => {
        const r = await d.member.get(`${d.ws}/runs/${created.body.id}`);
        return r.body.state !== 'running' ? r.body : null;
      });
      expect(run).toMatchObject({ state: 'completed', final_answer: 'expired' });
      const task = await d.member.get(`${d.ws}/runs/${created.body.id}/tasks/t1`);
      expect(task.body).toMatchObject({ state: 'timed_out', error: { code: 'approval_expired' } });
      const late = await d.member.post(`${d.ws}/runs/${created.body.id}/tasks/t1/approve`);
      expect(late.status).toBe(409);
      expect(await modelReads(d, created.body.id)).toEqual([
        'Nobody approved this tool call before it expired.',
      ]);
    });

    it('on_failure hold: an expired park holds the run until a person retries it', async () => {
      // The park expires by moving the kernel's clock a day on, not by a short TTL: the retried
      // row parks again with the same TTL, and the approve below must not race its clock.
      let ahead = 0;
      d = await kernels.deploy(backend, { clock: () => Date.now() + ahead });
      const created = await d.agent.post(
        `${d.ws}/runs`,
        scripted(
          'ask',
          [
            { tool_calls: [{ name: 'deploy', input: {} }] },
            { final: 'deployed', expect: 'deploy ok' },
          ],
          { on_failure: 'hold' },
        ),
      );
      const runId = created.body.id;
      await waitFor(
        async () =>
          (await d.member.get(`${d.ws}/runs/${runId}/tasks/t1`)).body.state === 'needs_approval',
      );
      ahead = 25 * 3_600_000;
      const held = await waitFor(async () => {
        const r = await d.member.get(`${d.ws}/runs/${runId}`);
        return r.body.attention.some((a: { reason: string }) => a.reason === 'failure_hold')
          ? r.body
          : null;
      });
      expect(held.state).toBe('running');
      expect(held.attention).toEqual([{ reason: 'failure_hold', blocked_task_keys: ['t1'] }]);
      const retried = await d.member.post(`${d.ws}/runs/${runId}/tasks/t1/retry`);
      expect(retried.body.state).toBe('needs_approval');
      expect((await d.member.post(`${d.ws}/runs/${runId}/tasks/t1/approve`)).status).toBe(200);
      const run = await executeUntilDone(d, runId);
      expect(run).toMatchObject({ state: 'completed', final_answer: 'deployed' });
    });

    it('on_failure hold: an expired park retried crosses the stage again, so a guardrail added since refuses it', async () => {
      d = await kernels.deploy(backend, { parkTtlMs: 200 });
      const created = await d.agent.post(
        `${d.ws}/runs`,
        scripted('ask', [{ tool_calls: [{ name: 'deploy', input: {} }] }, { final: 'never' }], {
          on_failure: 'hold',
        }),
      );
      const runId = created.body.id;
      await waitFor(async () => {
        const r = await d.member.get(`${d.ws}/runs/${runId}`);
        return r.body.attention.some((a: { reason: string }) => a.reason === 'failure_hold')
          ? r.body
          : null;
      });
      // While the run held, a member added a guardrail against deploys.
      const guardrail = {
        ruleSetId: 'supervised',
        rules: [{ verdict: 'deny', guardrail: true, tools: ['deploy'], reason: 'freeze' }],
      };
      const put = await putOverlay(d.member, `${d.ws}/overlays/user/me`, [guardrail]);
      expect(put.status).toBe(200);
      const retried = await d.member.post(`${d.ws}/runs/${runId}/tasks/t1/retry`);
      expect([retried.status, retried.body.error?.code]).toEqual([409, 'retry_refused']);
      expect(retried.body.error.detail).toContain('freeze');
      const task = await d.member.get(`${d.ws}/runs/${runId}/tasks/t1`);
      expect(task.body).toMatchObject({ state: 'timed_out', error: { code: 'approval_expired' } });
    });

    it('on_failure hold: a failed tool holds the run; abandon ends it', async () => {
      d = await kernels.deploy(backend);
      const created = await d.agent.post(
        `${d.ws}/runs`,
        scripted('bypass', [
          { tool_calls: [{ name: 'bash', input: { command: 'make' }, on_failure: 'hold' }] },
          { final: 'never' },
        ]),
      );
      const runId = created.body.id;
      const claim = await d.executor.post('/executor_api/v1/claim', {});
      expect(claim.body.claim.task.key).toBe('t1');
      const committed = await d.executor.post(`/executor_api/v1/runs/${runId}/tasks/t1/commit`, {
        claim_id: claim.body.claim.claim_id,
        outcome: 'failed',
        error: { code: 'exit_2', detail: 'make failed' },
      });
      expect(committed.body.state).toBe('failed');
      const run = (await d.member.get(`${d.ws}/runs/${runId}`)).body;
      expect(run.attention).toEqual([{ reason: 'failure_hold', blocked_task_keys: ['t1'] }]);
      const abandoned = await d.member.post(`${d.ws}/runs/${runId}/abandon`);
      expect(abandoned.body).toMatchObject({ state: 'failed', error: { code: 'abandoned' } });
    });

    it('stop cancels parked rows and answers 409 to later decisions, 200 to a later stop', async () => {
      d = await kernels.deploy(backend);
      const created = await d.agent.post(
        `${d.ws}/runs`,
        scripted('ask', [{ tool_calls: [{ name: 'a' }, { name: 'b' }] }, { final: 'x' }]),
      );
      const runId = created.body.id;
      expect(created.body.attention[0].blocked_task_keys).toEqual(['t1', 't2']);
      const stopped = await d.member.post(`${d.ws}/runs/${runId}/stop`);
      expect(stopped.body).toMatchObject({ state: 'canceled', attention: [] });
      const tasks = (await d.member.get(`${d.ws}/runs/${runId}/tasks`)).body.tasks;
      expect(tasks.map((t: { state: string }) => t.state)).toEqual(['canceled', 'canceled']);
      const late = await d.member.post(`${d.ws}/runs/${runId}/tasks/t1/approve`);
      expect(late.status).toBe(409);
      // The run guard answers first: no verb moves a row of a run that is no longer running.
      expect(late.body.error.code).toBe('run_not_running');
      // A second stop changes nothing and answers the run as it is (runs-stop.test.ts).
      const again = await d.member.post(`${d.ws}/runs/${runId}/stop`);
      expect([again.status, again.body.state]).toEqual([200, 'canceled']);
    });

    it('racing approve and deny: exactly one wins, the rest answer 409', async () => {
      d = await kernels.deploy(backend);
      const created = await d.agent.post(
        `${d.ws}/runs`,
        scripted('ask', [{ tool_calls: [{ name: 'x' }] }, { final: 'y' }]),
      );
      const runId = created.body.id;
      const answers = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          d.member.post(`${d.ws}/runs/${runId}/tasks/t1/${i % 2 === 0 ? 'approve' : 'deny'}`),
        ),
      );
      const statuses = answers.map((a) => a.status).sort();
      expect(statuses.filter((s) => s === 200)).toHaveLength(1);
      expect(statuses.filter((s) => s === 409)).toHaveLength(11);
      const events = (await d.member.get(`${d.ws}/runs/${runId}/events`)).body.events;
      const decided = events.filter((e: { type: string }) =>
        ['task.approved', 'task.denied'].includes(e.type),
      );
      expect(decided).toHaveLength(1);
    });

    it('an executor whose lease lapses loses the row; it is claimable again', async () => {
      d = await kernels.deploy(backend);
      const created = await d.agent.post(
        `${d.ws}/runs`,
        scripted('bypass', [{ tool_calls: [{ name: 'slow' }] }, { final: 'z', expect: 'second' }]),
      );
      const runId = created.body.id;
      const first = await d.executor.post(`/executor_api/v1/runs/${runId}/tasks/t1/claim`, {
        lease_ms: 1000,
      });
      expect(first.status).toBe(200);
      const busy = await d.executor.post(`/executor_api/v1/runs/${runId}/tasks/t1/claim`);
      expect(busy.body.error.code).toBe('not_claimable');
      const second = await waitFor(async () => {
        const again = await d.executor.post(`/executor_api/v1/runs/${runId}/tasks/t1/claim`);
        return again.status === 200 ? again.body : null;
      });
      expect(second.task.attempts).toBe(2);
      const stale = await d.executor.post(`/executor_api/v1/runs/${runId}/tasks/t1/commit`, {
        claim_id: first.body.claim_id,
        outcome: 'succeeded',
        result: 'first',
      });
      expect(stale.status).toBe(409);
      expect(stale.body.error.code).toBe('lease_lost');
      const ok = await d.executor.post(`/executor_api/v1/runs/${runId}/tasks/t1/commit`, {
        claim_id: second.claim_id,
        outcome: 'succeeded',
        result: 'second',
      });
      expect(ok.status).toBe(200);
      const run = await waitFor(async () => {
        const r = await d.member.get(`${d.ws}/runs/${runId}`);
        return r.body.state !== 'running' ? r.body : null;
      });
      expect(run.state).toBe('completed');
    });
  });
}
