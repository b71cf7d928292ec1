import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type Deployment, sharedKernels, waitFor } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const all = await backends();
const PROFILE = '/agent_api/v1/profile/configuration';
const bash = (command: string) => ({ name: 'bash', input: { command } });
const scripted = (rounds: unknown[]) => ({ kind: 'scripted', rounds });

/** Claims and commits every runnable row of a run with `NAME ok`, until `done` says stop. */
async function execute(d: Deployment, runId: string, done: () => Promise<boolean>) {
  await waitFor(
    async () => {
      const inbox = await d.executor.get('/executor_api/v1/inbox');
      for (const item of inbox.body.items) {
        if (item.kind !== 'tool' || item.run_id !== runId) continue;
        const base = `/executor_api/v1/runs/${runId}/tasks/${item.task_key}`;
        const claim = await d.executor.post(`${base}/claim`);
        if (claim.status !== 200) continue;
        await d.executor.post(`${base}/commit`, {
          claim_id: claim.body.claim_id,
          outcome: 'succeeded',
          result: `${item.tool_name} ok`,
        });
      }
      return done();
    },
    { what: `run ${runId} to reach its next state` },
  );
}

async function tasksOf(d: Deployment, runId: string) {
  return (await d.member.get(`${d.ws}/runs/${runId}/tasks`)).body.tasks as {
    key: string;
    state: string;
    decision: { outcome: string; layer?: string; reminders?: string[] };
    effect_profile: { decided_by_layer?: string; action_tags?: string[] } | null;
  }[];
}

async function runState(d: Deployment, runId: string) {
  return (await d.member.get(`${d.ws}/runs/${runId}`)).body;
}

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`action contracts over HTTP (${backend.name})`, () => {
    let d: Deployment;
    const kernels = sharedKernels();
    afterAll(() => kernels.close());
    afterEach(async () => {
      await d?.close();
    });

    it('under bypass, a forbidden tag refuses a compound command the declared rules grant', async () => {
      d = await kernels.deploy(backend);
      const created = await d.agent.post(`${d.ws}/runs`, {
        approval_mode: 'bypass',
        approval_rules: [{ tool: 'bash', verdict: 'allow' }],
        action_contract: {
          contract_version: 1,
          authorization: { forbidden: ['action:destructive'] },
        },
        input: 'clean up',
        provider: scripted([
          { tool_calls: [bash('ls && rm -rf build')] },
          {
            final: 'refused',
            expect: ['approval_denied', 'authorization.forbidden[0] `action:destructive`'],
          },
        ]),
      });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({
        error: null,
        state: 'completed',
        final_answer: 'refused',
      });
      const [task] = await tasksOf(d, created.body.id);
      expect(task).toMatchObject({
        state: 'failed',
        decision: { outcome: 'denied', layer: 'action_contract' },
      });
      const events = (await d.member.get(`${d.ws}/runs/${created.body.id}/events`)).body.events;
      expect(events.find((e: { type: string }) => e.type === 'task.denied').data).toMatchObject({
        layer: 'action_contract',
      });
    });

    it('requires_user parks each call; approving runs that row once; a higher version stops the asking', async () => {
      d = await kernels.deploy(backend);
      const contract = (version: number, list: 'requires_user' | 'allowed') => ({
        contract_version: version,
        authorization: { [list]: ['action:install_local'] },
      });
      const v1 = await d.agent.put(PROFILE, {
        approval_mode: 'bypass',
        action_contract: contract(1, 'requires_user'),
      });
      expect(v1.status).toBe(200);
      const conversation = (await d.agent.post('/agent_api/v1/conversations')).body.id;
      const turn = await d.agent.post(`/agent_api/v1/conversations/${conversation}/inputs`, {
        input: 'add left-pad',
        provider: scripted([
          { tool_calls: [bash('npm i left-pad')] },
          { tool_calls: [bash('npm i left-pad')], expect: 'bash ok' },
          { final: 'gave up', expect: 'approval_denied' },
        ]),
      });
      expect(turn.status).toBe(201);
      const runId = turn.body.id;
      let tasks = await tasksOf(d, runId);
      expect(tasks[0]).toMatchObject({
        state: 'needs_approval',
        decision: { layer: 'action_contract' },
      });
      expect(tasks[0]!.effect_profile).toMatchObject({
        decided_by_layer: 'action_contract',
        action_tags: ['install_local', 'network'],
      });
      expect((await d.member.post(`${d.ws}/runs/${runId}/tasks/t1/approve`)).status).toBe(200);
      await execute(d, runId, async () => (await tasksOf(d, runId)).length === 2);
      tasks = await tasksOf(d, runId);
      expect(tasks.map((task) => task.state)).toEqual(['succeeded', 'needs_approval']);

      const sameVersion = await d.agent.put(PROFILE, {
        approval_mode: 'bypass',
        action_contract: contract(1, 'allowed'),
      });
      expect(sameVersion.status).toBe(409);
      expect(sameVersion.body.error.code).toBe('contract_version_not_higher');
      const lower = await d.agent.put(PROFILE, {
        approval_mode: 'bypass',
        action_contract: contract(0, 'allowed'),
      });
      expect(lower.status).toBe(409);
      expect((await d.agent.get(PROFILE)).body.version).toBe(1);

      const v2 = await d.agent.put(PROFILE, {
        approval_mode: 'bypass',
        action_contract: contract(2, 'allowed'),
      });
      expect(v2.status).toBe(200);
      // The running turn keeps the contract it froze: its second call still waits for a person.
      expect((await d.member.post(`${d.ws}/runs/${runId}/tasks/t2/deny`)).status).toBe(200);
      const next = await d.agent.post(`/agent_api/v1/conversations/${conversation}/inputs`, {
        input: 'add left-pad again',
        provider: scripted([
          { tool_calls: [bash('npm i left-pad')] },
          { final: 'installed', expect: 'bash ok' },
        ]),
      });
      expect(next.body.config_version).toBe(2);
      const [granted] = await tasksOf(d, next.body.id);
      expect(granted).toMatchObject({ state: 'runnable', decision: { outcome: 'granted' } });
      await execute(
        d,
        next.body.id,
        async () => (await runState(d, next.body.id)).state !== 'running',
      );
      expect(await runState(d, next.body.id)).toMatchObject({
        state: 'completed',
        final_answer: 'installed',
      });
    });

    it('shadow mode lets the call run and reminds on the feed and in what the model reads', async () => {
      d = await kernels.deploy(backend);
      const created = await d.agent.post(`${d.ws}/runs`, {
        approval_mode: 'bypass',
        action_contract: {
          contract_version: 1,
          enforcement: 'shadow',
          authorization: { forbidden: ['action:destructive'] },
          constraints: ['keep the build directory'],
        },
        input: 'clean up',
        provider: scripted([
          { tool_calls: [bash('sudo rm -rf build')] },
          {
            final: 'cleaned',
            expect: [
              'bash ok',
              'shadow mode',
              'would have been refused',
              'keep the build directory',
            ],
          },
        ]),
      });
      expect(created.status).toBe(201);
      const runId = created.body.id;
      const [task] = await tasksOf(d, runId);
      expect(task).toMatchObject({ state: 'runnable', decision: { outcome: 'granted' } });
      await execute(d, runId, async () => (await runState(d, runId)).state !== 'running');
      expect(await runState(d, runId)).toMatchObject({
        state: 'completed',
        final_answer: 'cleaned',
      });
      const events = (await d.member.get(`${d.ws}/runs/${runId}/events`)).body.events;
      const granted = events.find((e: { type: string }) => e.type === 'task.granted');
      expect(granted).toMatchObject({ task_key: 't1', data: { state: 'runnable' } });
      expect(granted.data.reminders).toEqual([
        expect.stringContaining('authorization.forbidden[0] `action:destructive`'),
        expect.stringContaining('"keep the build directory"'),
      ]);
    });

    it('an allowed match grants nothing the declared rules refuse or park', async () => {
      d = await kernels.deploy(backend);
      const contract = {
        contract_version: 1,
        authorization: { allowed: ['tool:bash', 'tool:deploy'] },
      };
      const refused = await d.agent.post(`${d.ws}/runs`, {
        approval_mode: 'rules',
        action_contract: contract,
        input: 'x',
        provider: scripted([
          { tool_calls: [bash('ls')] },
          { final: 'no', expect: 'no approval rule allows bash' },
        ]),
      });
      expect(refused.body).toMatchObject({ state: 'completed', final_answer: 'no' });
      const [denied] = await tasksOf(d, refused.body.id);
      expect(denied!.decision).toMatchObject({ outcome: 'denied', layer: 'approval_rules' });
      const parked = await d.agent.post(`${d.ws}/runs`, {
        approval_mode: 'ask',
        action_contract: contract,
        input: 'x',
        provider: scripted([{ tool_calls: [{ name: 'deploy', input: {} }] }, { final: 'x' }]),
      });
      const [waiting] = await tasksOf(d, parked.body.id);
      expect(waiting).toMatchObject({
        state: 'needs_approval',
        decision: { layer: 'approval_rules' },
      });
    });

    it('refuses a contract with an unsupported tag, naming the supported form, and creates nothing', async () => {
      d = await kernels.deploy(backend);
      const refused = await d.agent.post(`${d.ws}/runs`, {
        approval_mode: 'bypass',
        action_contract: {
          contract_version: 1,
          authorization: { forbidden: ['action:install-local'] },
        },
        input: 'x',
        provider: scripted([{ final: 'x' }]),
      });
      expect(refused.status).toBe(422);
      expect(refused.body.error.problems).toEqual([
        expect.objectContaining({
          code: 'contract_action_tag_unknown',
          pointer: '/action_contract/authorization/forbidden/0',
          message: expect.stringContaining('action:install_local'),
        }),
      ]);
      expect((await d.member.get(`${d.ws}/runs`)).body.runs).toEqual([]);
    });
  });
}
