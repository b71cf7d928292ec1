import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type Deployment, sharedKernels, waitFor } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const all = await backends();

function asking(rounds: unknown[], mode: 'bypass' | 'ask' | 'rules' = 'ask') {
  return { approval_mode: mode, input: 'ask me', provider: { kind: 'scripted', rounds } };
}

async function runState(d: Deployment, runId: string) {
  return (await d.member.get(`${d.ws}/runs/${runId}`)).body;
}

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`questions (${backend.name})`, () => {
    let d: Deployment;
    const kernels = sharedKernels();
    afterAll(() => kernels.close());
    afterEach(async () => {
      await d?.close();
    });

    it("a model's ask rests at awaiting_input; options are enforced; the model reads the answer", async () => {
      d = await kernels.deploy(backend);
      const created = await d.agent.post(
        `${d.ws}/runs`,
        asking([
          {
            tool_calls: [
              { name: 'ask', input: { prompt: 'Deploy when?', options: ['Now', 'Later'] } },
            ],
          },
          { final: 'deploying now', expect: 'Now' },
        ]),
      );
      const runId = created.body.id;
      expect(created.body.state).toBe('running');
      expect(created.body.attention).toEqual([
        { reason: 'awaiting_human', blocked_task_keys: ['t1'] },
      ]);
      const task = (await d.member.get(`${d.ws}/runs/${runId}/tasks/t1`)).body;
      expect(task).toMatchObject({
        kind: 'ask',
        state: 'awaiting_input',
        prompt: 'Deploy when?',
        options: ['Now', 'Later'],
        multi: false,
        addressee: d.appId,
      });
      expect(task.deadline_at).toBeGreaterThan(Date.now() + 23 * 3600_000);
      const inbox = (await d.executor.get('/executor_api/v1/inbox')).body.items;
      expect(inbox).toEqual([expect.objectContaining({ kind: 'ask', task_key: 't1' })]);
      for (const verb of ['claim', 'commit']) {
        const refused = await d.executor.post(`/executor_api/v1/runs/${runId}/tasks/t1/${verb}`, {
          ...(verb === 'commit' ? { claim_id: 'x', outcome: 'succeeded' } : {}),
        });
        expect([verb, refused.status, refused.body.error.code]).toEqual([
          verb,
          409,
          'not_claimable_kind',
        ]);
      }
      const wrong = await d.member.post(`${d.ws}/runs/${runId}/tasks/t1/resolution`, {
        content: 'Tomorrow',
      });
      expect(wrong.status).toBe(422);
      expect(wrong.body.error.code).toBe('invalid_resolution');
      const byAgent = await d.agent.post(`${d.ws}/runs/${runId}/tasks/t1/resolution`, {
        content: 'Now',
      });
      expect(byAgent.status).toBe(403);
      const answered = await d.member.post(`${d.ws}/runs/${runId}/tasks/t1/resolution`, {
        content: 'Now',
      });
      expect(answered.body).toMatchObject({ state: 'succeeded', result: 'Now' });
      const again = await d.member.post(`${d.ws}/runs/${runId}/tasks/t1/resolution`, {
        content: 'Later',
      });
      expect(again.status).toBe(409);
      const run = await waitFor(async () => {
        const r = await runState(d, runId);
        return r.state !== 'running' && r;
      });
      expect(run).toMatchObject({ state: 'completed', final_answer: 'deploying now' });
    });

    it('a multi question takes an array of its options; a decline is read as a failure', async () => {
      d = await kernels.deploy(backend);
      const created = await d.member.post(
        `${d.ws}/runs`,
        asking(
          [
            {
              tool_calls: [
                { name: 'ask', input: { prompt: 'Which?', options: ['a', 'b', 'c'], multi: true } },
                { name: 'ask', input: { prompt: 'Anything else?' } },
              ],
            },
            { final: 'noted', expect: ['["a","c"]', 'declined'] },
          ],
          'bypass',
        ),
      );
      const runId = created.body.id;
      const single = await d.member.post(`${d.ws}/runs/${runId}/tasks/t1/resolution`, {
        content: 'a',
      });
      expect(single.body.error.code).toBe('invalid_resolution');
      const dup = await d.member.post(`${d.ws}/runs/${runId}/tasks/t1/resolution`, {
        content: ['a', 'a'],
      });
      expect(dup.status).toBe(422);
      const picked = await d.member.post(`${d.ws}/runs/${runId}/tasks/t1/resolution`, {
        content: ['a', 'c'],
      });
      expect(picked.body.state).toBe('succeeded');
      const declined = await d.member.post(`${d.ws}/runs/${runId}/tasks/t2/resolution`, {
        outcome: 'failed',
      });
      expect(declined.body).toMatchObject({ state: 'failed', error: { code: 'declined' } });
      const run = await waitFor(async () => {
        const r = await runState(d, runId);
        return r.state !== 'running' && r;
      });
      expect(run.final_answer).toBe('noted');
    });

    it('an expired question holds the run until a person retries it (never a success)', async () => {
      d = await kernels.deploy(backend, { parkTtlMs: 300 });
      const created = await d.member.post(
        `${d.ws}/runs`,
        asking([
          { tool_calls: [{ name: 'ask', input: { prompt: 'Still there?' } }] },
          { final: 'yes', expect: 'Yes' },
        ]),
      );
      const runId = created.body.id;
      const held = await waitFor(async () => {
        const r = await runState(d, runId);
        return r.attention.some((a: { reason: string }) => a.reason === 'failure_hold') && r;
      });
      expect(held.state).toBe('running');
      const task = (await d.member.get(`${d.ws}/runs/${runId}/tasks/t1`)).body;
      expect(task).toMatchObject({
        state: 'timed_out',
        on_failure: 'hold',
        error: { code: 'question_expired' },
      });
      const retried = await d.member.post(`${d.ws}/runs/${runId}/tasks/t1/retry`);
      expect(retried.body.state).toBe('awaiting_input');
      await d.member.post(`${d.ws}/runs/${runId}/tasks/t1/resolution`, { content: 'Yes' });
      const run = await waitFor(async () => {
        const r = await runState(d, runId);
        return r.state !== 'running' && r;
      });
      expect(run).toMatchObject({ state: 'completed', final_answer: 'yes' });
    });

    it('a client-authored ask is answered with its resolution token and refused without it', async () => {
      d = await kernels.deploy(backend);
      const created = await d.member.post(
        `${d.ws}/runs`,
        asking([{ tool_calls: [{ name: 'deploy' }] }, { final: 'done' }]),
      );
      const runId = created.body.id;
      const appended = await d.member.post(`${d.ws}/runs/${runId}/tasks`, {
        tool_name: 'ask',
        tool_input: { prompt: 'Proceed?', options: ['yes', 'no'] },
      });
      expect(appended.status).toBe(201);
      expect(appended.body).toMatchObject({
        kind: 'ask',
        origin: 'author',
        state: 'awaiting_input',
        addressee: null,
      });
      const token = appended.body.resolution_token;
      expect(token).toMatch(/^alk_answer_/);
      const key = appended.body.key;
      // Nobody else is nudged: not on the executor inbox, not on the run's attention.
      const inbox = (await d.executor.get('/executor_api/v1/inbox')).body.items;
      expect(inbox.map((i: { task_key: string }) => i.task_key)).not.toContain(key);
      const run = await runState(d, runId);
      expect(JSON.stringify(run.attention)).not.toContain(`"${key}"`);
      const without = await d.member.post(`${d.ws}/runs/${runId}/tasks/${key}/resolution`, {
        content: 'yes',
      });
      expect(without.status).toBe(403);
      const other = await d.member.post(`${d.ws}/runs/${runId}/tasks/${key}/resolution`, {
        content: 'yes',
        resolution_token: `${token}x`,
      });
      expect(other.status).toBe(403);
      expect(other.body.error.code).toBe('forbidden');
      const answered = await d.member.post(`${d.ws}/runs/${runId}/tasks/${key}/resolution`, {
        content: 'yes',
        resolution_token: token,
      });
      expect(answered.body).toMatchObject({ state: 'succeeded', result: 'yes' });
      const bad = await d.member.post(`${d.ws}/runs/${runId}/tasks`, {
        tool_name: 'ask',
        tool_input: { options: ['x'] },
      });
      expect(bad.status).toBe(422);
      expect(bad.body.error.code).toBe('invalid_question');
    });

    it('a client-authored ask under a runner-qualified name is a question too: token given, bad one refused', async () => {
      d = await kernels.deploy(backend);
      const created = await d.member.post(
        `${d.ws}/runs`,
        asking([{ tool_calls: [{ name: 'deploy' }] }, { final: 'done' }]),
      );
      const runId = created.body.id;
      // The stage reads ask__0123456789ab as ask: before, it planted a question with no token
      // (nobody could answer it) and a malformed one as a failed row answered 201.
      const appended = await d.member.post(`${d.ws}/runs/${runId}/tasks`, {
        tool_name: 'ask__0123456789ab',
        tool_input: { prompt: 'Proceed?' },
      });
      expect(appended.status).toBe(201);
      expect(appended.body).toMatchObject({ kind: 'ask', state: 'awaiting_input' });
      expect(appended.body.resolution_token).toMatch(/^alk_answer_/);
      const answered = await d.member.post(
        `${d.ws}/runs/${runId}/tasks/${appended.body.key}/resolution`,
        { content: 'yes', resolution_token: appended.body.resolution_token },
      );
      expect(answered.body).toMatchObject({ state: 'succeeded', result: 'yes' });
      const bad = await d.member.post(`${d.ws}/runs/${runId}/tasks`, {
        tool_name: 'ask__0123456789ab',
        tool_input: { options: ['x'] },
      });
      expect([bad.status, bad.body.error.code]).toEqual([422, 'invalid_question']);
    });
  });
}
