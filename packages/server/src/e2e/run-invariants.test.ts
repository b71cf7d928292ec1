import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { claimAndCommit, type Deployment, sharedKernels, waitFor } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const all = await backends();

function standalone(
  mode: 'bypass' | 'ask',
  rounds: unknown[],
  extra: Record<string, unknown> = {},
) {
  return { approval_mode: mode, input: 'go', provider: { kind: 'scripted', rounds }, ...extra };
}

async function run(d: Deployment, runId: string) {
  return (await d.member.get(`${d.ws}/runs/${runId}`)).body;
}

async function task(d: Deployment, runId: string, key: string) {
  return (await d.member.get(`${d.ws}/runs/${runId}/tasks/${key}`)).body;
}

async function eventTypes(d: Deployment, runId: string): Promise<string[]> {
  const body = (await d.member.get(`${d.ws}/runs/${runId}/events`)).body;
  return body.events.map((e: { type: string }) => e.type);
}

async function holding(d: Deployment, runId: string) {
  return waitFor(async () => {
    const r = await run(d, runId);
    return r.attention.some((a: { reason: string }) => a.reason === 'failure_hold') && r;
  });
}

/** Lets the kernel's loop and clocks take every step they would take (sweeps run every 50 ms). */
async function quiesce(d: Deployment, runId: string) {
  let last = '';
  for (let stable = 0; stable < 4; ) {
    await new Promise((resolve) => setTimeout(resolve, 60));
    const now = JSON.stringify(await eventTypes(d, runId));
    stable = now === last ? stable + 1 : 0;
    last = now;
  }
}

/** The verbs that would revive or run a row, each of which must answer 409 `run_not_running`. */
async function expectNothingRevives(d: Deployment, runId: string, key: string) {
  const before = await task(d, runId, key);
  const events = await eventTypes(d, runId);
  for (const [client, path] of [
    [d.member, `${d.ws}/runs/${runId}/tasks/${key}/retry`],
    [d.member, `${d.ws}/runs/${runId}/tasks/${key}/approve`],
    [d.member, `${d.ws}/runs/${runId}/tasks/${key}/deny`],
    [d.executor, `/executor_api/v1/runs/${runId}/tasks/${key}/claim`],
  ] as const) {
    const answer = await client.post(path);
    expect([path, answer.status, answer.body.error?.code]).toEqual([path, 409, 'run_not_running']);
  }
  expect(await task(d, runId, key)).toEqual(before);
  expect(await eventTypes(d, runId)).toEqual(events);
  expect((await d.executor.get('/executor_api/v1/inbox')).body.items).toEqual([]);
}

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`run invariants over REST (${backend.name})`, () => {
    let d: Deployment;
    const kernels = sharedKernels();
    afterAll(() => kernels.close());
    afterEach(async () => {
      await d?.close();
    });

    it('defect 1: after abandon, a failed hold row is neither retried nor claimed', async () => {
      d = await kernels.deploy(backend);
      const created = await d.member.post(
        `${d.ws}/runs`,
        standalone('bypass', [
          { tool_calls: [{ name: 'make', on_failure: 'hold' }] },
          { final: 'x' },
        ]),
      );
      const runId = created.body.id;
      await claimAndCommit(d, runId, 't1', {
        outcome: 'failed',
        error: { code: 'exit_2', detail: 'no' },
      });
      await holding(d, runId);
      const abandoned = await d.member.post(`${d.ws}/runs/${runId}/abandon`);
      expect(abandoned.body).toMatchObject({ state: 'failed', error: { code: 'abandoned' } });
      await expectNothingRevives(d, runId, 't1');
    });

    for (const end of ['abandon', 'stop'] as const) {
      it(`defect 1: after an expired park and ${end}, retry, approve and claim answer 409`, async () => {
        d = await kernels.deploy(backend, { parkTtlMs: 150 });
        const created = await d.agent.post(
          `${d.ws}/runs`,
          standalone('ask', [{ tool_calls: [{ name: 'deploy' }] }, { final: 'x' }], {
            on_failure: 'hold',
          }),
        );
        const runId = created.body.id;
        await holding(d, runId);
        expect(await task(d, runId, 't1')).toMatchObject({ state: 'timed_out' });
        const ended = await d.member.post(`${d.ws}/runs/${runId}/${end}`);
        expect(ended.status).toBe(200);
        await expectNothingRevives(d, runId, 't1');
      });
    }

    it("defect 2: an authored question's expiry holds the run after the model's row commits", async () => {
      d = await kernels.deploy(backend, { parkTtlMs: 150 });
      const created = await d.member.post(
        `${d.ws}/runs`,
        standalone('bypass', [{ tool_calls: [{ name: 'build' }] }, { final: 'done' }]),
      );
      const runId = created.body.id;
      const asked = await d.member.post(`${d.ws}/runs/${runId}/tasks`, {
        tool_name: 'ask',
        tool_input: { prompt: 'Ship it?' },
      });
      expect(asked.body).toMatchObject({ key: 't2', state: 'awaiting_input' });
      const held = await holding(d, runId);
      expect(held.attention).toEqual([{ reason: 'failure_hold', blocked_task_keys: ['t2'] }]);
      expect(await task(d, runId, 't2')).toMatchObject({
        state: 'timed_out',
        error: { code: 'question_expired' },
      });
      const committed = await claimAndCommit(d, runId, 't1', {
        outcome: 'succeeded',
        result: 'built',
      });
      expect(committed.body.state).toBe('succeeded');
      await quiesce(d, runId);
      expect(await run(d, runId)).toMatchObject({
        state: 'running',
        final_answer: null,
        attention: [{ reason: 'failure_hold', blocked_task_keys: ['t2'] }],
      });
      expect(await eventTypes(d, runId)).not.toContain('run.completed');
    });

    it('defect 2: a failed author row with on_failure hold holds until retried and run', async () => {
      d = await kernels.deploy(backend);
      const created = await d.member.post(
        `${d.ws}/runs`,
        standalone('bypass', [{ tool_calls: [{ name: 'build' }] }, { final: 'done' }]),
      );
      const runId = created.body.id;
      const appended = await d.member.post(`${d.ws}/runs/${runId}/tasks`, {
        tool_name: 'lint',
        tool_input: {},
        on_failure: 'hold',
      });
      expect(appended.body).toMatchObject({ key: 't2', origin: 'author', state: 'runnable' });
      await claimAndCommit(d, runId, 't2', {
        outcome: 'failed',
        error: { code: 'exit_1', detail: 'x' },
      });
      await claimAndCommit(d, runId, 't1', { outcome: 'succeeded', result: 'built' });
      await quiesce(d, runId);
      expect(await run(d, runId)).toMatchObject({
        state: 'running',
        attention: [{ reason: 'failure_hold', blocked_task_keys: ['t2'] }],
      });
      const retried = await d.member.post(`${d.ws}/runs/${runId}/tasks/t2/retry`);
      expect(retried.body).toMatchObject({ state: 'runnable' });
      await claimAndCommit(d, runId, 't2', { outcome: 'succeeded', result: 'clean' });
      const ended = await waitFor(async () => {
        const r = await run(d, runId);
        return r.state !== 'running' && r;
      });
      expect(ended).toMatchObject({ state: 'completed', final_answer: 'done', attention: [] });
    });

    it('defect 3: an answer waits for a runnable author row; the stop hook comes after it', async () => {
      d = await kernels.deploy(backend);
      const created = await d.member.post(
        `${d.ws}/runs`,
        standalone('bypass', [{ tool_calls: [{ name: 'build' }] }, { final: 'done' }], {
          lifecycle_hooks: { stop: { tool: 'check', timeout_ms: 60_000, max_continuations: 1 } },
        }),
      );
      const runId = created.body.id;
      const appended = await d.member.post(`${d.ws}/runs/${runId}/tasks`, {
        tool_name: 'notify',
        tool_input: {},
      });
      expect(appended.body).toMatchObject({ key: 't2', state: 'runnable' });
      await claimAndCommit(d, runId, 't1', { outcome: 'succeeded', result: 'built' });
      await quiesce(d, runId);
      // The model answered; the answer waits: no stop hook planted, the author row still claimable.
      expect(await eventTypes(d, runId)).toContain('run.model_read');
      const rows = (await d.member.get(`${d.ws}/runs/${runId}/tasks`)).body.tasks;
      expect(rows.map((t: { key: string; state: string }) => [t.key, t.state])).toEqual([
        ['t1', 'succeeded'],
        ['t2', 'runnable'],
      ]);
      expect((await run(d, runId)).state).toBe('running');
      await claimAndCommit(d, runId, 't2', { outcome: 'succeeded', result: 'sent' });
      const hook = await waitFor(async () => {
        const items = (await d.executor.get('/executor_api/v1/inbox')).body.items;
        return items.find((i: { kind: string }) => i.kind === 'hook');
      });
      const accepted = await claimAndCommit(d, runId, hook.task_key, {
        outcome: 'succeeded',
        result: { structured_content: { continue: false } },
      });
      expect(accepted.body.state).toBe('succeeded');
      const ended = await waitFor(async () => {
        const r = await run(d, runId);
        return r.state !== 'running' && r;
      });
      expect(ended).toMatchObject({ state: 'completed', final_answer: 'done' });
      expect((await d.executor.get('/executor_api/v1/inbox')).body.items).toEqual([]);
    });

    it('defect 3: a question still awaiting_input keeps the run waiting until it is answered', async () => {
      d = await kernels.deploy(backend);
      const created = await d.member.post(
        `${d.ws}/runs`,
        standalone('bypass', [{ tool_calls: [{ name: 'build' }] }, { final: 'done' }]),
      );
      const runId = created.body.id;
      const asked = await d.member.post(`${d.ws}/runs/${runId}/tasks`, {
        tool_name: 'ask',
        tool_input: { prompt: 'Anything to add?' },
      });
      await claimAndCommit(d, runId, 't1', { outcome: 'succeeded', result: 'built' });
      await quiesce(d, runId);
      expect(await run(d, runId)).toMatchObject({ state: 'running', final_answer: null });
      const answered = await d.member.post(`${d.ws}/runs/${runId}/tasks/t2/resolution`, {
        content: 'no',
        resolution_token: asked.body.resolution_token,
      });
      expect(answered.body.state).toBe('succeeded');
      const ended = await waitFor(async () => {
        const r = await run(d, runId);
        return r.state !== 'running' && r;
      });
      expect(ended).toMatchObject({ state: 'completed', final_answer: 'done' });
    });

    it('defect 4: a retry re-parks with nobody as decider; approve then records the approver', async () => {
      // The park expires by moving the kernel's clock a day on, not by a short TTL: the retry
      // parks again under the same TTL, and the reads and the approve below must not race it
      // (a TTL of 150 ms re-expired the row at load 15).
      let ahead = 0;
      d = await kernels.deploy(backend, { clock: () => Date.now() + ahead });
      const created = await d.agent.post(
        `${d.ws}/runs`,
        standalone('ask', [{ tool_calls: [{ name: 'deploy' }] }, { final: 'x' }], {
          on_failure: 'hold',
        }),
      );
      const runId = created.body.id;
      await waitFor(async () => (await task(d, runId, 't1')).state === 'needs_approval');
      ahead = 25 * 3_600_000;
      await holding(d, runId);
      const retried = await d.member.post(`${d.ws}/runs/${runId}/tasks/t1/retry`);
      expect(retried.body).toMatchObject({ state: 'needs_approval', decided_by: null });
      expect(await task(d, runId, 't1')).toMatchObject({ decided_by: null });
      const approved = await d.member.post(`${d.ws}/runs/${runId}/tasks/t1/approve`);
      expect(approved.body.decided_by).toMatch(/^member:/);
    });

    it('defect 4: profile.put answers the stored created_at', async () => {
      let tick = 0;
      // Every reading of the clock is a later millisecond: the answer must not read it again.
      d = await kernels.deploy(backend, { clock: () => Date.now() + tick++ });
      const put = await d.agent.put('/agent_api/v1/profile/configuration', {
        approval_mode: 'ask',
      });
      expect(put.status).toBe(200);
      const got = await d.agent.get('/agent_api/v1/profile/configuration');
      expect(put.body.created_at).toBe(got.body.created_at);
    });

    it('defect 4: continue:true past max_continuations answers what the row ends as', async () => {
      d = await kernels.deploy(backend);
      const created = await d.member.post(`${d.ws}/runs`, {
        ...standalone('bypass', [{ final: 'candidate' }]),
        lifecycle_hooks: { stop: { tool: 'check', timeout_ms: 60_000, max_continuations: 0 } },
      });
      const runId = created.body.id;
      const hook = await waitFor(async () => {
        const items = (await d.executor.get('/executor_api/v1/inbox')).body.items;
        return items.find((i: { kind: string }) => i.kind === 'hook');
      });
      const committed = await claimAndCommit(d, runId, hook.task_key, {
        outcome: 'succeeded',
        result: { structured_content: { continue: true, feedback: 'one more' } },
      });
      expect(committed.body).toMatchObject({
        state: 'failed',
        error: { code: 'max_continuations_exceeded' },
      });
      await quiesce(d, runId);
      expect(await task(d, runId, hook.task_key)).toMatchObject({
        state: 'failed',
        error: { code: 'max_continuations_exceeded' },
      });
      expect(await run(d, runId)).toMatchObject({
        state: 'running',
        attention: [{ reason: 'failure_hold', blocked_task_keys: [hook.task_key] }],
      });
    });
  });
}
