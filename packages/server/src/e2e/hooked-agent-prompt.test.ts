import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type Deployment, putOverlay, sharedKernels } from '../testing/harness.js';
import { HOOK_EVENTS_PATH } from '../testing/hooked-events.js';
import { backends } from '../testing/stores.js';

/**
 * A hooked agent's report that its own user answered a parked call (Claude
 * Code's prompt) is an agent credential speaking, not a member. It approves
 * only a park the kernel handed to that prompt: an action contract's
 * `requires_user`, for an agent that has a prompt, under a policy that asks
 * one approval of any member. Any other park, and any refused call, that the
 * agent says ran is recorded as an unstaged call, and its row is left as it was.
 */

const all = await backends();
const PROFILE = '/agent_api/v1/profile/configuration';
const sqlite = all.find((backend) => backend.name === 'sqlite' && backend.skip === null);

const REQUIRES_USER = {
  approval_mode: 'bypass',
  action_contract: {
    contract_version: 1,
    enforcement: 'balanced',
    authorization: { requires_user: ['action:install_local'] },
  },
};

describe.skipIf(!sqlite)('a parked call answered in the agent prompt', () => {
  let d: Deployment;
  const kernels = sharedKernels();
  afterAll(() => kernels.close());
  afterEach(async () => {
    await d?.close();
  });

  const send = (agent: string, body: Record<string, unknown>) =>
    d.agent.post(HOOK_EVENTS_PATH, { agent, session_id: `${agent}-1`, ...body });
  const call = (command: string) => ({ tool_name: 'Bash', tool_input: { command } });
  const check = (agent: string, command: string, id: string) =>
    send(agent, { event: 'pre_tool', ...call(command), tool_use_id: id });
  const ranInPrompt = (agent: string, command: string, id: string) =>
    send(agent, {
      event: 'post_tool',
      ...call(command),
      tool_use_id: id,
      output: 'done',
      answered_by_user: true,
    });
  const story = async (runId: string) =>
    (await d.member.get(`${d.ws}/runs/${runId}/events`)).body.events as {
      type: string;
      data: Record<string, unknown>;
    }[];
  const row = async (runId: string, key: string) =>
    (await d.member.get(`${d.ws}/runs/${runId}/tasks/${key}`)).body;

  it('approves a requires_user park of Claude Code under the default policy, as its user', async () => {
    d = await kernels.deploy(sqlite!);
    await d.agent.put(PROFILE, REQUIRES_USER);
    const asked = await check('claude-code', 'npm install left-pad', 'tu-1');
    expect(asked.body).toMatchObject({ verdict: 'wait', requires_user: true });
    const ran = await ranInPrompt('claude-code', 'npm install left-pad', 'tu-1');
    expect(ran.body).toMatchObject({ verdict: 'ack', task_state: 'succeeded' });
    expect((await row(ran.body.run_id, 't1')).decided_by).toBe('hooks:claude-code:user');
  });

  it('leaves a park the policy keeps for members: no hand-over, and a report approves nothing', async () => {
    d = await kernels.deploy(sqlite!);
    const policy = await d.member.put(`${d.ws}/approval_policy`, {
      policy: { rules: [{ tool: 'Bash', required: 2 }] },
    });
    expect(policy.status).toBe(200);
    await d.agent.put(PROFILE, REQUIRES_USER);
    const asked = await check('claude-code', 'npm install left-pad', 'tu-1');
    // Not handed to the agent's prompt: the client waits for members in Airlock.
    expect(asked.body).toMatchObject({ verdict: 'wait', requires_user: false });
    const runId = asked.body.run_id as string;

    const ran = await ranInPrompt('claude-code', 'npm install left-pad', 'tu-1');
    expect(ran.status).toBe(200);
    expect(ran.body).toMatchObject({ verdict: 'ack', task_state: 'needs_approval' });
    expect(ran.body.reason).toContain('never granted; recorded as an unstaged call');
    const parked = await row(runId, 't1');
    expect(parked).toMatchObject({ state: 'needs_approval', decided_by: null });
    const events = await story(runId);
    expect(events.map((e) => e.type)).not.toContain('task.approved');
    expect(events.filter((e) => e.type === 'run.unstaged_call').map((e) => e.data)).toEqual([
      expect.objectContaining({ tool_name: 'Bash', tool_use_id: 'tu-1', found_in: 'post_tool' }),
    ]);
    // The members' decision is still theirs: the park stays in the decisions list.
    const decisions = (await d.member.get(`${d.ws}/decisions`)).body.decisions as {
      run_id: string;
    }[];
    expect(decisions.map((decision) => decision.run_id)).toContain(runId);
  });

  it("keeps a park an admin's guardrail also asks for for members, whatever the agent's own contract says", async () => {
    d = await kernels.deploy(sqlite!);
    const put = await putOverlay(d.member, `${d.ws}/overlays/user/me`, [
      {
        ruleSetId: 'supervised',
        rules: [
          {
            verdict: 'ask',
            guardrail: true,
            tools: ['Bash'],
            argument_patterns: { '/command': '*left-pad*' },
            reason: 'a member looks at installs',
          },
        ],
      },
    ]);
    expect(put.status).toBe(200);
    // The agent writes its own contract: a requires_user rule of its own covering the same call.
    await d.agent.put(PROFILE, REQUIRES_USER);
    const asked = await check('claude-code', 'npm install left-pad', 'tu-1');
    expect(asked.body).toMatchObject({ verdict: 'wait', requires_user: false });
    const ran = await ranInPrompt('claude-code', 'npm install left-pad', 'tu-1');
    expect(ran.body).toMatchObject({ verdict: 'ack', task_state: 'needs_approval' });
    const parked = await row(asked.body.run_id, asked.body.task_key);
    expect(parked).toMatchObject({ state: 'needs_approval', decided_by: null });
  });

  it('approves nothing for an agent without a prompt of its own (Codex), nor an ordinary ask', async () => {
    d = await kernels.deploy(sqlite!);
    await d.agent.put(PROFILE, REQUIRES_USER);
    await check('codex', 'npm install left-pad', 'tu-1');
    const codex = await ranInPrompt('codex', 'npm install left-pad', 'tu-1');
    expect(codex.body).toMatchObject({ task_state: 'needs_approval' });

    await d.agent.put(PROFILE, {
      approval_mode: 'rules',
      approval_rules: [{ tool: 'Bash', path: 'command', match: 'git push *', verdict: 'ask' }],
    });
    const asked = await check('claude-code', 'git push origin main', 'tu-2');
    expect(asked.body).toMatchObject({ verdict: 'wait', requires_user: false });
    const claude = await ranInPrompt('claude-code', 'git push origin main', 'tu-2');
    expect(claude.body).toMatchObject({ task_state: 'needs_approval' });
    expect((await row(claude.body.run_id, asked.body.task_key)).decided_by).toBeNull();
  });

  it('records a refused call the agent ran anyway, and leaves it refused', async () => {
    d = await kernels.deploy(sqlite!);
    await d.agent.put(PROFILE, {
      approval_mode: 'rules',
      approval_rules: [
        { tool: 'Bash', path: 'command', match: 'rm *', verdict: 'deny', reason: 'no deletes' },
      ],
    });
    const refused = await check('codex', 'rm -r build', 'tu-1');
    expect(refused.body).toMatchObject({ verdict: 'deny' });
    const runId = refused.body.run_id as string;
    const ran = await send('codex', {
      event: 'post_tool',
      ...call('rm -r build'),
      tool_use_id: 'tu-1',
      output: '',
    });
    expect(ran.body).toMatchObject({ verdict: 'ack', task_state: 'failed' });
    expect((await row(runId, 't1')).error.code).toBe('approval_denied');
    const unstaged = (await story(runId)).filter((e) => e.type === 'run.unstaged_call');
    expect(unstaged.map((e) => e.data)).toEqual([
      expect.objectContaining({ tool_name: 'Bash', tool_use_id: 'tu-1', found_in: 'post_tool' }),
    ]);
  });
});
