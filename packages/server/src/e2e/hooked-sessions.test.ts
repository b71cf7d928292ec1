import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type Deployment, sharedKernels, waitFor } from '../testing/harness.js';
import { bashPreTool, HOOK_EVENTS_PATH, postHookEvent } from '../testing/hooked-events.js';
import { backends } from '../testing/stores.js';

const all = await backends();
const PROFILE = '/agent_api/v1/profile/configuration';

const RULES = [
  { tool: 'Bash', path: 'command', match: 'rm *', verdict: 'deny', reason: 'no deletes here' },
  { tool: 'Bash', path: 'command', match: 'ls*', verdict: 'allow' },
  { tool: 'Bash', path: 'command', match: 'git push*', verdict: 'ask' },
  { tool: 'Read', verdict: 'allow' },
];

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`hooked sessions over HTTP (${backend.name})`, () => {
    let d: Deployment;
    const kernels = sharedKernels();
    afterAll(() => kernels.close());
    afterEach(async () => {
      await d?.close();
    });

    const event = (body: Record<string, unknown>) => postHookEvent(d, body);
    const bash = bashPreTool;
    const tasksOf = async (runId: string) =>
      (await d.member.get(`${d.ws}/runs/${runId}/tasks`)).body.tasks as {
        key: string;
        state: string;
        tool_call_id: string | null;
        result: unknown;
        error: { code: string; detail: string } | null;
      }[];

    it('plants each call as a model row: refused, granted and claimed, committed with what ran', async () => {
      d = await kernels.deploy(backend);
      await d.agent.put(PROFILE, { approval_mode: 'rules', approval_rules: RULES });
      const started = await event({ event: 'session_start' });
      expect(started.status).toBe(200);
      expect(started.body).toMatchObject({ verdict: 'ack', run_id: null });

      const denied = await event(bash('rm -r ./build', 'tu-1'));
      expect(denied.status).toBe(200);
      expect(denied.body).toMatchObject({
        verdict: 'deny',
        reason: 'no deletes here',
        task_key: 't1',
        task_state: 'failed',
        conversation_id: started.body.conversation_id,
      });
      const runId = denied.body.run_id as string;
      const run = (await d.member.get(`${d.ws}/runs/${runId}`)).body;
      expect(run).toMatchObject({
        state: 'running',
        conversation_id: started.body.conversation_id,
      });

      const granted = await event(bash('ls -la', 'tu-2'));
      expect(granted.body).toMatchObject({
        verdict: 'allow',
        task_key: 't2',
        task_state: 'claimed',
      });
      // The same call asked again is refused and plants nothing: a call is granted once.
      const again = await event(bash('ls -la', 'tu-2'));
      expect(again.body.error.code).toBe('not_claimable');
      // No executor can take a call the agent runs itself.
      const inbox = await d.executor.get('/executor_api/v1/inbox');
      expect(inbox.body.items.filter((i: { run_id: string }) => i.run_id === runId)).toEqual([]);

      const ran = await event({
        event: 'post_tool',
        tool_name: 'Bash',
        tool_input: { command: 'ls -la' },
        tool_use_id: 'tu-2',
        outcome: 'succeeded',
        output: 'build\nsrc\n',
      });
      expect(ran.body).toMatchObject({ verdict: 'ack', task_key: 't2', task_state: 'succeeded' });
      // Asked again once it ran, the call is refused with what it returned (a framework's replay).
      const replay = await event(bash('ls -la', 'tu-2'));
      expect(replay.body.error).toMatchObject({
        code: 'not_claimable',
        ran: { output: 'build\nsrc\n' },
      });
      const tasks = await tasksOf(runId);
      expect(tasks.map((t) => [t.key, t.state, t.tool_call_id])).toEqual([
        ['t1', 'failed', 'tu-1'],
        ['t2', 'succeeded', 'tu-2'],
      ]);
      expect(tasks[1]?.result).toEqual({ content: [{ type: 'text', text: 'build\nsrc\n' }] });
      const events = (await d.member.get(`${d.ws}/runs/${runId}/events`)).body.events as {
        type: string;
        principal: string | null;
      }[];
      expect(events.find((e) => e.type === 'task.succeeded')?.principal).toBe('hooks:claude-code');

      // A call the agent ran with no hook asking (its tool had no matcher) is recorded as such.
      const unstaged = await event({
        event: 'post_tool',
        tool_name: 'WebFetch',
        tool_input: { url: 'https://example.com' },
        tool_use_id: 'tu-9',
        outcome: 'succeeded',
        output: 'fetched',
      });
      expect(unstaged.body).toMatchObject({ verdict: 'ack', run_id: runId, task_key: null });
      expect((await tasksOf(runId)).length).toBe(2);
      const story = (await d.member.get(`${d.ws}/runs/${runId}/events`)).body.events as {
        type: string;
        data: Record<string, unknown>;
      }[];
      expect(story.find((e) => e.type === 'run.unstaged_call')?.data).toMatchObject({
        agent: 'claude-code',
        tool_name: 'WebFetch',
        tool_use_id: 'tu-9',
        outcome: 'succeeded',
        output: 'fetched',
      });
      const audit = await fetch(`${d.url}${d.ws}/runs/${runId}/audit`, {
        headers: { authorization: `Bearer ${d.tokens.member}` },
      });
      const records = (await audit.text())
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l));
      expect(records.find((r) => r.decision === 'ran_unstaged')).toMatchObject({
        decider: 'hook',
        principal: 'hooks:claude-code',
        tool_name: 'WebFetch',
      });

      // The other agents' sessions of the same id are other conversations.
      const codex = await d.agent.post(HOOK_EVENTS_PATH, {
        agent: 'codex',
        session_id: 's-1',
        event: 'session_start',
      });
      expect(codex.body.conversation_id).not.toBe(started.body.conversation_id);
    });

    it('a park waits for a person; after the hook gave up, the identical retry is granted once', async () => {
      d = await kernels.deploy(backend);
      await d.agent.put(PROFILE, { approval_mode: 'rules', approval_rules: RULES });
      const parked = await event(bash('git push origin main', 'tu-1'));
      expect(parked.body).toMatchObject({
        verdict: 'wait',
        task_key: 't1',
        task_state: 'needs_approval',
      });
      const runId = parked.body.run_id;
      // Asked again by key while nobody decided: still waiting.
      const still = await event({ ...bash('git push origin main', 'tu-1'), task_key: 't1' });
      expect(still.body).toMatchObject({ verdict: 'wait', task_key: 't1' });
      // The hook gives up (its own deadline); later a person approves.
      const approved = await d.member.post(`${d.ws}/runs/${runId}/tasks/t1/approve`);
      expect(approved.status).toBe(200);
      // The model retries the identical call with a new id: granted against that approval.
      const retry = await event(bash('git push origin main', 'tu-2'));
      expect(retry.body).toMatchObject({ verdict: 'allow', task_key: 't1', task_state: 'claimed' });
      await event({
        event: 'post_tool',
        tool_name: 'Bash',
        tool_input: { command: 'git push origin main' },
        tool_use_id: 'tu-2',
        output: 'pushed',
      });
      // Once: the next identical call is a new row that parks again.
      const third = await event(bash('git push origin main', 'tu-3'));
      expect(third.body).toMatchObject({ verdict: 'wait', task_key: 't2' });
      await d.member.post(`${d.ws}/runs/${runId}/tasks/t2/deny`, { reason: 'not today' });
      const refused = await event({ ...bash('git push origin main', 'tu-3'), task_key: 't2' });
      expect(refused.body).toMatchObject({ verdict: 'deny', reason: 'not today' });
      const tasks = await tasksOf(runId);
      expect(tasks.map((t) => [t.key, t.state, t.tool_call_id])).toEqual([
        ['t1', 'succeeded', 'tu-2'],
        ['t2', 'failed', 'tu-3'],
      ]);
    });

    it('stop ends the turn through the stop hook, capped by max_continuations; the next prompt is a new turn', async () => {
      d = await kernels.deploy(backend);
      await d.agent.put(PROFILE, {
        approval_mode: 'rules',
        approval_rules: [...RULES, { tool: 'check_stop', verdict: 'allow', origin: 'kernel' }],
        lifecycle_hooks: {
          stop: { tool: 'check_stop', timeout_ms: 5000, max_continuations: 1 },
        },
      });
      const turn = await event({ event: 'turn_start', text: 'tidy up' });
      expect(turn.body).toMatchObject({ verdict: 'ack' });
      const runId = turn.body.run_id;
      const run = (await d.member.get(`${d.ws}/runs/${runId}`)).body;
      expect(run).toMatchObject({ state: 'running', conversation_id: turn.body.conversation_id });
      await event(bash('ls', 'tu-1'));
      const stopping = await event({ event: 'stop', text: 'done', ran_calls: [] });
      expect(stopping.body).toMatchObject({ verdict: 'wait' });
      const hookKey = stopping.body.task_key;
      // The executor serving check_stop asks for one more round.
      const serve = async (decision: unknown) => {
        const inbox = await waitFor(async () => {
          const items = (await d.executor.get('/executor_api/v1/inbox')).body.items as {
            kind: string;
            task_key: string;
          }[];
          return items.find((i) => i.kind === 'hook') ?? null;
        });
        const base = `/executor_api/v1/runs/${runId}/tasks/${inbox.task_key}`;
        const claim = await d.executor.post(`${base}/claim`);
        await d.executor.post(`${base}/commit`, {
          claim_id: claim.body.claim_id,
          outcome: 'succeeded',
          result: { structured_content: decision },
        });
      };
      // The unreported call, which the transcript does not show, was closed as not run before the answer was offered.
      expect((await tasksOf(runId))[0]).toMatchObject({
        state: 'failed',
        error: { code: 'not_run' },
      });
      await serve({ continue: true, feedback: 'Run the tests first.' });
      const continued = await event({ event: 'stop', task_key: hookKey });
      expect(continued.body).toMatchObject({ verdict: 'continue', reason: 'Run the tests first.' });
      // The agent goes on in the same run, then stops again: the cap makes the next request fail visibly.
      const more = await event(bash('ls tests', 'tu-2'));
      expect(more.body).toMatchObject({ verdict: 'allow', run_id: runId });
      await event({
        event: 'post_tool',
        tool_name: 'Bash',
        tool_input: { command: 'ls tests' },
        tool_use_id: 'tu-2',
        output: 'ok',
      });
      const second = await event({ event: 'stop', text: 'done, tested' });
      expect(second.body).toMatchObject({ verdict: 'wait' });
      await serve({ continue: false });
      const ended = await event({ event: 'stop', task_key: second.body.task_key });
      expect(ended.body).toMatchObject({ verdict: 'ack' });
      const done = (await d.member.get(`${d.ws}/runs/${runId}`)).body;
      expect(done).toMatchObject({ state: 'completed', final_answer: 'done, tested' });

      const next = await event({ event: 'turn_start', text: 'next thing' });
      expect(next.body.run_id).not.toBe(runId);
      expect(next.body.conversation_id).toBe(turn.body.conversation_id);
    });

    it('a continuation past max_continuations fails the stop hook visibly and holds the run', async () => {
      d = await kernels.deploy(backend);
      await d.agent.put(PROFILE, {
        approval_mode: 'rules',
        approval_rules: [{ tool: 'check_stop', verdict: 'allow', origin: 'kernel' }],
        lifecycle_hooks: { stop: { tool: 'check_stop', timeout_ms: 5000, max_continuations: 0 } },
      });
      const turn = await event({ event: 'turn_start', text: 'hi' });
      const runId = turn.body.run_id;
      const stopping = await event({ event: 'stop', text: 'bye' });
      expect(stopping.body.verdict).toBe('wait');
      const base = `/executor_api/v1/runs/${runId}/tasks/${stopping.body.task_key}`;
      const claim = await d.executor.post(`${base}/claim`);
      await d.executor.post(`${base}/commit`, {
        claim_id: claim.body.claim_id,
        outcome: 'succeeded',
        result: { structured_content: { continue: true, feedback: 'again' } },
      });
      const refused = await event({ event: 'stop', task_key: stopping.body.task_key });
      expect(refused.body.verdict).toBe('deny');
      expect(refused.body.reason).toContain('max_continuations_exceeded');
      const run = (await d.member.get(`${d.ws}/runs/${runId}`)).body;
      expect(run.state).toBe('running');
      expect(run.attention.map((a: { reason: string }) => a.reason)).toContain('failure_hold');
    });

    it('a failed turn_start hook holds the run: the prompt is refused, and a stop leaves the answer waiting', async () => {
      d = await kernels.deploy(backend);
      await d.agent.put(PROFILE, {
        approval_mode: 'rules',
        approval_rules: [{ tool: 'check_turn', verdict: 'allow', origin: 'kernel' }],
        lifecycle_hooks: { turn_start: { tool: 'check_turn', timeout_ms: 5000 } },
      });
      const turn = await event({ event: 'turn_start', text: 'hi' });
      expect(turn.body).toMatchObject({ verdict: 'wait', task_state: 'runnable' });
      const runId = turn.body.run_id;
      const base = `/executor_api/v1/runs/${runId}/tasks/${turn.body.task_key}`;
      const claim = await d.executor.post(`${base}/claim`);
      await d.executor.post(`${base}/commit`, {
        claim_id: claim.body.claim_id,
        outcome: 'failed',
        error: { code: 'check_failed', detail: 'no' },
      });
      const refused = await event({ event: 'turn_start', task_key: turn.body.task_key });
      expect(refused.body.verdict).toBe('deny');
      const stopped = await event({ event: 'stop', text: 'bye' });
      expect(stopped.status).toBe(200);
      expect(stopped.body.verdict).toBe('ack');
      const run = (await d.member.get(`${d.ws}/runs/${runId}`)).body;
      expect(run.state).toBe('running');
    });

    it('requires_user and shadow reminders come back as such', async () => {
      d = await kernels.deploy(backend);
      await d.agent.put(PROFILE, {
        approval_mode: 'bypass',
        action_contract: {
          contract_version: 1,
          enforcement: 'balanced',
          authorization: { requires_user: ['action:install_local'] },
        },
      });
      const asked = await event(bash('npm install left-pad', 'tu-1'));
      expect(asked.body).toMatchObject({ verdict: 'wait', requires_user: true });
      // The agent's own user said yes in its prompt, and the call ran: recorded as such.
      const ran = await event({
        event: 'post_tool',
        tool_name: 'Bash',
        tool_input: { command: 'npm install left-pad' },
        tool_use_id: 'tu-1',
        output: 'added 1 package',
        answered_by_user: true,
      });
      expect(ran.body).toMatchObject({ task_state: 'succeeded' });
      const task = (await tasksOf(ran.body.run_id))[0] as unknown as { decided_by: string };
      expect(task.decided_by).toBe('hooks:claude-code:user');

      await d.agent.put(PROFILE, {
        approval_mode: 'bypass',
        action_contract: {
          contract_version: 2,
          enforcement: 'shadow',
          authorization: { forbidden: ['action:destructive'] },
        },
      });
      const shadow = await d.agent.post(HOOK_EVENTS_PATH, {
        agent: 'gemini',
        session_id: 'g-1',
        event: 'pre_tool',
        tool_name: 'run_shell_command',
        tool_input: { command: 'rm -rf build' },
      });
      expect(shadow.body.verdict).toBe('allow');
      expect(shadow.body.reminders[0]).toContain('would have been refused');
    });

    it('refuses what is no event of a session, and other planes', async () => {
      d = await kernels.deploy(backend);
      await d.agent.put(PROFILE, { approval_mode: 'rules', approval_rules: RULES });
      const bad = await d.agent.post(HOOK_EVENTS_PATH, {
        agent: 'vim',
        session_id: 's',
        event: 'pre_tool',
      });
      expect(bad.status).toBe(400);
      expect(bad.body.error.code).toBe('invalid_input');
      const noTool = await event({ event: 'pre_tool' });
      expect(noTool.status).toBe(400);
      const member = await d.member.post(HOOK_EVENTS_PATH, {
        agent: 'codex',
        session_id: 's',
        event: 'stop',
      });
      expect(member.status).toBe(403);
      const unknownKey = await event({ ...bash('ls', 'x'), task_key: 't99' });
      expect(unknownKey.status).toBe(404);
      expect(unknownKey.body.error.code).toBe('task_not_found');
    });
  });
}
