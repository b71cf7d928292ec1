import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type Deployment, sharedKernels, waitFor } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const [sqlite] = await backends();

const script = (rounds: unknown[]) => ({ kind: 'scripted', rounds });

describe('profile configuration and run-backed turns', () => {
  let d: Deployment;
  const kernels = sharedKernels();
  afterAll(() => kernels.close());
  afterEach(async () => {
    await d?.close();
  });

  it('refuses a bad declaration whole, listing every problem, and keeps the old version', async () => {
    d = await kernels.deploy(sqlite!);
    const good = await d.agent.put('/agent_api/v1/profile/configuration', {
      approval_mode: 'ask',
      approval_rules: [{ tool: 'ls', verdict: 'allow' }],
      tool_names: ['ls', 'deploy'],
    });
    expect(good.status).toBe(200);
    expect(good.body.version).toBe(1);
    const bad = await d.agent.put('/agent_api/v1/profile/configuration', {
      approval_mode: 'loose',
      approval_rules: [{ tool: '', verdict: 'allow', match: '*' }, 'nope'],
      extra: true,
    });
    expect(bad.status).toBe(422);
    expect(bad.body.error.code).toBe('invalid_configuration');
    const pointers = bad.body.error.problems.map((p: { pointer: string }) => p.pointer);
    expect(pointers).toEqual(
      expect.arrayContaining(['/approval_mode', '/extra', '/approval_rules/1']),
    );
    const current = await d.agent.get('/agent_api/v1/profile/configuration');
    expect(current.body.version).toBe(1);
  });

  it('freezes the configuration on each turn, narrows by tightening, refuses widening', async () => {
    d = await kernels.deploy(sqlite!);
    expect((await d.agent.post('/agent_api/v1/conversations')).status).toBe(201);
    const conversation = (await d.agent.post('/agent_api/v1/conversations')).body.id;
    const before = await d.agent.post(`/agent_api/v1/conversations/${conversation}/inputs`, {
      input: 'hi',
      provider: script([{ final: 'x' }]),
    });
    expect(before.status).toBe(409);
    expect(before.body.error.code).toBe('no_profile_configuration');
    await d.agent.put('/agent_api/v1/profile/configuration', {
      approval_mode: 'ask',
      approval_rules: [{ tool: 'ls', verdict: 'allow' }],
      tool_names: ['ls', 'deploy'],
    });
    const widened = await d.agent.post(`/agent_api/v1/conversations/${conversation}/inputs`, {
      input: 'hi',
      approval_mode: 'bypass',
      tool_names: ['ls', 'rm'],
      provider: script([{ final: 'x' }]),
    });
    expect(widened.status).toBe(422);
    expect(widened.body.error.code).toBe('tightening_widens');
    const turn = await d.agent.post(`/agent_api/v1/conversations/${conversation}/inputs`, {
      input: 'hi',
      approval_mode: 'rules',
      tool_names: ['ls'],
      provider: script([
        { tool_calls: [{ name: 'ls' }, { name: 'deploy' }] },
        { final: 'done', expect: ["deploy is not among this run's tool_names"] },
      ]),
    });
    expect(turn.status).toBe(201);
    expect(turn.body).toMatchObject({
      approval_mode: 'rules',
      tool_names: ['ls'],
      config_version: 1,
      conversation_id: conversation,
    });
    await d.agent.put('/agent_api/v1/profile/configuration', { approval_mode: 'bypass' });
    const regenerated = await d.agent.post(`/agent_api/v1/runs/${turn.body.id}/regenerate`);
    expect(regenerated.status).toBe(201);
    expect(regenerated.body).toMatchObject({
      approval_mode: 'rules',
      config_version: 1,
      regenerated_from: turn.body.id,
      approval_rules: [{ tool: 'ls', verdict: 'allow' }],
    });
  });

  it("a member's standalone run addresses its parks to nobody; author rows are pre-approved", async () => {
    d = await kernels.deploy(sqlite!);
    const run = await d.member.post(`${d.ws}/runs`, {
      approval_mode: 'ask',
      approval_rules: [{ tool: 'danger', verdict: 'ask', origin: 'author' }],
      input: 'mine',
      provider: script([{ tool_calls: [{ name: 'deploy' }] }, { final: 'f' }]),
    });
    expect(run.body.agent_application_id).toBeNull();
    const parked = await d.member.get(`${d.ws}/runs/${run.body.id}/tasks/t1`);
    expect(parked.body).toMatchObject({ state: 'needs_approval', addressee: null });
    const inbox = await d.executor.get('/executor_api/v1/inbox');
    expect(inbox.body.items).toEqual([]);
    const decisions = await d.member.get(`${d.ws}/decisions`);
    expect(decisions.body.decisions.map((t: { key: string }) => t.key)).toEqual(['t1']);
    const author = await d.member.post(`${d.ws}/runs/${run.body.id}/tasks`, {
      tool_name: 'deploy',
      tool_input: { env: 'prod' },
      origin: 'model',
    });
    expect(author.status).toBe(400);
    const appended = await d.member.post(`${d.ws}/runs/${run.body.id}/tasks`, {
      tool_name: 'deploy',
      tool_input: { env: 'prod' },
    });
    expect(appended.body).toMatchObject({ origin: 'author', state: 'runnable' });
    const opted = await d.member.post(`${d.ws}/runs/${run.body.id}/tasks`, { tool_name: 'danger' });
    expect(opted.body).toMatchObject({ origin: 'author', state: 'needs_approval' });
    const fromAgent = await d.agent.post(`${d.ws}/runs/${run.body.id}/tasks`, { tool_name: 'x' });
    expect(fromAgent.status).toBe(403);
    await waitFor(
      async () => (await d.executor.get('/executor_api/v1/inbox')).body.items.length === 1,
    );
  });
});
