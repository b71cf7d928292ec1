import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type Deployment, sharedKernels } from '../testing/harness.js';
import { bashPostTool, bashPreTool, postHookEvent } from '../testing/hooked-events.js';
import { backends } from '../testing/stores.js';

/**
 * A call asked about again by its agent's call id (or the key the kernel
 * named) is bound to what the row holds: another tool or another input under
 * the same id is refused, and a grant goes to one check only.
 */

const [sqlite] = await backends();
const bash = bashPreTool;
const PROFILE = '/agent_api/v1/profile/configuration';
const RULES = [
  { tool: 'Bash', path: 'command', match: 'ls*', verdict: 'allow' },
  { tool: 'Bash', path: 'command', match: 'git push*', verdict: 'ask' },
];

describe('a hooked call is bound to the call its row holds', () => {
  let d: Deployment;
  const kernels = sharedKernels();
  afterAll(() => kernels.close());
  afterEach(async () => {
    await d?.close();
  });

  const event = (body: Record<string, unknown>) => postHookEvent(d, body);
  const taskOf = async (runId: string, key: string) =>
    (await d.member.get(`${d.ws}/runs/${runId}/tasks/${key}`)).body as {
      state: string;
      tool_name: string;
      tool_input: unknown;
      error: { code: string; detail: string } | null;
    };

  it('refuses another input or another tool under an approved call id, and changes nothing', async () => {
    d = await kernels.deploy(sqlite!);
    await d.agent.put(PROFILE, { approval_mode: 'rules', approval_rules: RULES });
    const push = { command: 'git push origin main', description: 'push' };
    const parked = await event({ ...bash('', 'tu-1'), tool_input: push });
    expect(parked.body).toMatchObject({ verdict: 'wait', task_key: 't1' });
    const runId = parked.body.run_id as string;
    await d.member.post(`${d.ws}/runs/${runId}/tasks/t1/approve`, {});

    const edited = await event(bash('rm -rf /', 'tu-1'));
    expect(edited.status).toBe(409);
    expect(edited.body.error.code).toBe('call_mismatch');
    const byKey = await event({ ...bash('rm -rf /', 'tu-1'), task_key: 't1' });
    expect(byKey.body.error.code).toBe('call_mismatch');
    const otherTool = await event({
      event: 'pre_tool',
      tool_name: 'Write',
      tool_input: push,
      tool_use_id: 'tu-1',
    });
    expect(otherTool.body.error.code).toBe('call_mismatch');
    expect(await taskOf(runId, 't1')).toMatchObject({
      state: 'runnable',
      tool_name: 'Bash',
      tool_input: push,
    });

    // The approved call itself, with its keys in another order, is granted.
    const granted = await event({
      event: 'pre_tool',
      tool_name: 'Bash',
      tool_input: { description: 'push', command: 'git push origin main' },
      tool_use_id: 'tu-1',
    });
    expect(granted.body).toMatchObject({ verdict: 'allow', task_state: 'claimed' });
    // A report of another call under the id is recorded, not refused: it ran.
    const reported = await event(bashPostTool('rm -rf /', 'tu-1', 'succeeded', 'gone'));
    expect(reported.body).toMatchObject({ verdict: 'ack', task_key: 't1', task_state: 'failed' });
    expect(await taskOf(runId, 't1')).toMatchObject({
      state: 'failed',
      error: { code: 'call_mismatch' },
    });
  });

  it('records a report of another input than granted: the row fails call_mismatch, what ran is an unstaged call, and stop does not call it not run', async () => {
    d = await kernels.deploy(sqlite!);
    await d.agent.put(PROFILE, { approval_mode: 'rules', approval_rules: RULES });
    const granted = await event(bash('ls', 'tu-1'));
    expect(granted.body).toMatchObject({ verdict: 'allow', task_key: 't1', task_state: 'claimed' });
    const runId = granted.body.run_id as string;
    // Something between the allow and the run (another hook, the tool itself) changed the input.
    const ranInput = { command: 'ls', timeout: 120000 };
    const reported = await event({
      ...bashPostTool('ls', 'tu-1', 'succeeded', 'out'),
      tool_input: ranInput,
    });
    expect(reported.status).toBe(200);
    expect(reported.body).toMatchObject({ verdict: 'ack', task_key: 't1', task_state: 'failed' });
    expect(reported.body.reason).toContain('call_mismatch');
    const ranCall = { tool_use_id: 'tu-1', tool_name: 'Bash', tool_input: ranInput };
    await event({
      event: 'stop',
      text: 'done',
      ran_calls: [{ ...ranCall, outcome: 'succeeded', output: 'out' }],
    });

    const row = (await d.member.get(`${d.ws}/runs/${runId}/tasks/t1`)).body;
    expect(row).toMatchObject({ state: 'failed', error: { code: 'call_mismatch' } });
    expect(row.error.detail).toContain('"timeout":120000');
    const story = (await d.member.get(`${d.ws}/runs/${runId}/events`)).body.events as {
      type: string;
      data: Record<string, unknown>;
    }[];
    expect(story.filter((e) => e.type === 'run.unstaged_call').map((e) => e.data)).toEqual([
      expect.objectContaining({
        tool_name: 'Bash',
        tool_use_id: 'tu-1',
        outcome: 'succeeded',
        output: 'out',
        found_in: 'post_tool',
      }),
    ]);
  });

  it('after approve with changes, a report that the composed input ran is a mismatch, not a success of the edit', async () => {
    d = await kernels.deploy(sqlite!);
    await d.agent.put(PROFILE, { approval_mode: 'rules', approval_rules: RULES });
    const parked = await event(bash('git push --force origin main', 'tu-1'));
    const runId = parked.body.run_id as string;
    await d.member.post(`${d.ws}/runs/${runId}/tasks/t1/approve`, {
      tool_input: { command: 'git push origin main' },
    });
    const granted = await event(bash('git push --force origin main', 'tu-1'));
    expect(granted.body).toMatchObject({
      verdict: 'allow',
      updated_input: { command: 'git push origin main' },
    });
    const reported = await event(
      bashPostTool('git push --force origin main', 'tu-1', 'succeeded', 'forced'),
    );
    expect(reported.body).toMatchObject({ verdict: 'ack', task_state: 'failed' });
    const row = (await d.member.get(`${d.ws}/runs/${runId}/tasks/t1`)).body;
    expect(row).toMatchObject({
      state: 'failed',
      error: { code: 'call_mismatch' },
      tool_input: { command: 'git push origin main' },
    });
    expect(row.error.detail).toContain('--force');
  });

  it("a task key names only a call of the agent's model: a lifecycle hook's row is not found", async () => {
    d = await kernels.deploy(sqlite!);
    await d.agent.put(PROFILE, {
      approval_mode: 'rules',
      approval_rules: [{ tool: 'check_turn', verdict: 'allow', origin: 'kernel' }],
      lifecycle_hooks: { turn_start: { tool: 'check_turn', timeout_ms: 5000 } },
    });
    const turn = await event({ event: 'turn_start', text: 'hi' });
    expect(turn.body).toMatchObject({ verdict: 'wait', task_key: 't1', task_state: 'runnable' });
    const runId = turn.body.run_id as string;
    const hook = await taskOf(runId, 't1');
    const call = { tool_name: hook.tool_name, tool_input: hook.tool_input, task_key: 't1' };

    const reported = await event({
      ...call,
      event: 'post_tool',
      outcome: 'succeeded',
      output: '{"continue":true}',
    });
    expect(reported.status).toBe(404);
    expect(reported.body.error.code).toBe('task_not_found');
    const asked = await event({ ...call, event: 'pre_tool' });
    expect(asked.body.error.code).toBe('task_not_found');
    expect((await taskOf(runId, 't1')).state).toBe('runnable');
  });

  it('after approve with changes, grants the composed call with the edit, or the edit itself', async () => {
    d = await kernels.deploy(sqlite!);
    await d.agent.put(PROFILE, { approval_mode: 'rules', approval_rules: RULES });
    const parked = await event(bash('git push origin main', 'tu-1'));
    const runId = parked.body.run_id as string;
    const approved = await d.member.post(`${d.ws}/runs/${runId}/tasks/t1/approve`, {
      tool_input: { command: 'git push origin feature' },
    });
    expect(approved.body.state).toBe('runnable');
    const other = await event(bash('git push origin other', 'tu-1'));
    expect(other.body.error.code).toBe('call_mismatch');
    const granted = await event({ ...bash('git push origin main', 'tu-1'), task_key: 't1' });
    expect(granted.body).toMatchObject({
      verdict: 'allow',
      updated_input: { command: 'git push origin feature' },
    });
    const ran = await event(bashPostTool('git push origin feature', 'tu-1', 'succeeded', 'ok'));
    expect(ran.body).toMatchObject({ verdict: 'ack', task_state: 'succeeded' });
  });

  it('grants an approved call to one check only: the racing checks are refused not_claimable', async () => {
    d = await kernels.deploy(sqlite!);
    await d.agent.put(PROFILE, { approval_mode: 'rules', approval_rules: RULES });
    const parked = await event(bash('git push origin main', 'tu-1'));
    const runId = parked.body.run_id as string;
    await d.member.post(`${d.ws}/runs/${runId}/tasks/t1/approve`, {});

    const answers = await Promise.all(
      [1, 2, 3].map(() => event({ ...bash('git push origin main', 'tu-1'), task_key: 't1' })),
    );
    const granted = answers.filter((answer) => answer.body.verdict === 'allow');
    expect(granted).toHaveLength(1);
    const refused = answers.filter((answer) => answer.status === 409);
    expect(refused.map((answer) => answer.body.error.code)).toEqual([
      'not_claimable',
      'not_claimable',
    ]);
    // Once it ran, asking again is refused as well: the call runs at most once.
    await event(bashPostTool('git push origin main', 'tu-1', 'succeeded', 'ok'));
    const after = await event(bash('git push origin main', 'tu-1'));
    expect(after.body.error.code).toBe('not_claimable');
    expect((await taskOf(runId, 't1')).state).toBe('succeeded');
  });
});
