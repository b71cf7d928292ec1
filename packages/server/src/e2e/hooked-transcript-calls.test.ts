import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type Deployment, sharedKernels } from '../testing/harness.js';
import { bashPostTool, bashPreTool, postHookEvent } from '../testing/hooked-events.js';
import { backends } from '../testing/stores.js';

/**
 * A call no hook asked or told about (its tool left out of the hooks'
 * matcher, hooks installed mid-turn) shows only in the agent's transcript.
 * The hook client reads the turn's calls from it at `Stop` and sends them as
 * `ran_calls`; the kernel records each one that crossed no stage, once.
 */

const all = await backends();
const PROFILE = '/agent_api/v1/profile/configuration';
const RULES = [
  { tool: 'Bash', path: 'command', match: 'ls*', verdict: 'allow' },
  { tool: 'Bash', path: 'command', match: 'rm *', verdict: 'deny', reason: 'no deletes' },
];

interface StoryEvent {
  type: string;
  data: Record<string, unknown>;
}

interface StoryTask {
  key: string;
  state: string;
  error?: { code: string; detail: string } | null;
}

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `calls only the transcript shows (${backend.name})`,
    () => {
      let d: Deployment;
      const kernels = sharedKernels();
      afterAll(() => kernels.close());
      afterEach(async () => {
        await d?.close();
      });

      const event = (body: Record<string, unknown>) => postHookEvent(d, body);
      const unstagedOf = async (runId: string) =>
        ((await d.member.get(`${d.ws}/runs/${runId}/events`)).body.events as StoryEvent[]).filter(
          (e) => e.type === 'run.unstaged_call',
        );

      it('records the calls of the turn no hook saw, once, and not the ones that crossed the stage', async () => {
        d = await kernels.deploy(backend);
        await d.agent.put(PROFILE, { approval_mode: 'rules', approval_rules: RULES });
        await event({ event: 'turn_start', text: 'tidy up' });
        const granted = await event(bashPreTool('ls', 'tu-1'));
        expect(granted.body).toMatchObject({ verdict: 'allow', task_key: 't1' });
        const runId = granted.body.run_id as string;
        await event(bashPostTool('ls', 'tu-1', 'succeeded', 'README.md'));
        const refused = await event(bashPreTool('rm -r build', 'tu-2'));
        expect(refused.body).toMatchObject({ verdict: 'deny' });
        // Reported by its post-tool hook with no pre-tool hook asking: recorded then.
        await event({
          event: 'post_tool',
          tool_name: 'WebFetch',
          tool_input: { url: 'https://example.com' },
          tool_use_id: 'tu-3',
          outcome: 'succeeded',
          output: 'fetched',
        });

        const ranCalls = [
          { tool_use_id: 'tu-1', tool_name: 'Bash', outcome: 'succeeded', output: 'README.md' },
          { tool_use_id: 'tu-2', tool_name: 'Bash', outcome: 'failed', output: 'no deletes' },
          { tool_use_id: 'tu-3', tool_name: 'WebFetch', outcome: 'succeeded', output: 'fetched' },
          { tool_use_id: 'tu-4', tool_name: 'Write', outcome: 'succeeded', output: 'wrote a.txt' },
          // Still running when the transcript was read: no result yet.
          { tool_use_id: 'tu-5', tool_name: 'Bash' },
        ];
        const stopped = await event({ event: 'stop', text: 'done', ran_calls: ranCalls });
        expect(stopped.status).toBe(200);
        const unstaged = await unstagedOf(runId);
        expect(unstaged.map((e) => [e.data.tool_use_id, e.data.found_in])).toEqual([
          ['tu-3', 'post_tool'],
          ['tu-4', 'transcript'],
          ['tu-5', 'transcript'],
        ]);
        expect(unstaged[1]?.data).toMatchObject({
          agent: 'claude-code',
          tool_name: 'Write',
          outcome: 'succeeded',
          output: 'wrote a.txt',
        });
        expect(unstaged[2]?.data).toMatchObject({ tool_name: 'Bash', outcome: null, output: '' });
        const tasks = (await d.member.get(`${d.ws}/runs/${runId}/tasks`)).body.tasks as unknown[];
        expect(tasks).toHaveLength(2);

        // The same stop again (an agent retrying its hook) records nothing twice.
        await event({ event: 'stop', text: 'done', ran_calls: ranCalls });
        expect(await unstagedOf(runId)).toHaveLength(3);

        const audit = await fetch(`${d.url}${d.ws}/runs/${runId}/audit`, {
          headers: { authorization: `Bearer ${d.tokens.member}` },
        });
        const lines = (await audit.text())
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as { decision: string; tool_name: string; detail: string });
        expect(
          lines.filter((l) => l.decision === 'ran_unstaged').map((l) => [l.tool_name, l.detail]),
        ).toEqual([
          ['WebFetch', 'claude-code ran it with no hook asking: succeeded'],
          ['Write', 'claude-code ran it with no hook asking: succeeded'],
          ['Bash', 'claude-code ran it with no hook asking: outcome unknown'],
        ]);
      });

      it('matches a Gemini CLI call (no call id) to its row by tool and input', async () => {
        d = await kernels.deploy(backend);
        await d.agent.put(PROFILE, {
          approval_mode: 'rules',
          approval_rules: [
            { tool: 'run_shell_command', path: 'command', match: 'ls*', verdict: 'allow' },
          ],
        });
        const gemini = (body: Record<string, unknown>) =>
          postHookEvent(d, { agent: 'gemini', session_id: 'g-1', ...body });
        await gemini({ event: 'turn_start', text: 'tidy up' });
        const shell = (command: string) => ({
          tool_name: 'run_shell_command',
          tool_input: { command, dir_path: '.' },
        });
        // Two identical calls, each asked about and reported by its hooks.
        for (let i = 0; i < 2; i += 1) {
          const granted = await gemini({ event: 'pre_tool', ...shell('ls -la') });
          expect(granted.body.verdict).toBe('allow');
          await gemini({
            event: 'post_tool',
            ...shell('ls -la'),
            outcome: 'succeeded',
            output: 'a',
          });
        }
        const [turn] = (await d.member.get(`${d.ws}/runs?limit=1`)).body.runs as { id: string }[];
        const ran = (id: string, command: string, input?: Record<string, unknown>) => ({
          tool_use_id: id,
          tool_name: 'run_shell_command',
          // The transcript's arguments, in another key order than the hook sent them.
          tool_input: input ?? { dir_path: '.', command },
          outcome: 'succeeded',
          output: command,
        });
        const ranCalls = [
          ran('c1', 'ls -la'),
          ran('c2', 'ls -la'),
          // A third identical call: only two rows were asked about, so this one ran unseen.
          ran('c3', 'ls -la'),
          ran('c4', 'rm -r build'),
        ];
        await gemini({ event: 'stop', text: 'done', ran_calls: ranCalls });
        const unstaged = await unstagedOf(turn!.id);
        expect(unstaged.map((e) => [e.data.tool_use_id, e.data.output])).toEqual([
          ['c3', 'ls -la'],
          ['c4', 'rm -r build'],
        ]);
        expect(unstaged[0]?.data).toMatchObject({ agent: 'gemini', found_in: 'transcript' });
        // Sent again, nothing is recorded twice.
        await gemini({ event: 'stop', text: 'done', ran_calls: ranCalls });
        expect(await unstagedOf(turn!.id)).toHaveLength(2);
      });

      it('fails a call reported as succeeded that the transcript shows failed (Codex gives no exit code)', async () => {
        d = await kernels.deploy(backend);
        await d.agent.put(PROFILE, {
          approval_mode: 'rules',
          approval_rules: [{ tool: 'Bash', verdict: 'allow' }],
        });
        const codex = (body: Record<string, unknown>) =>
          postHookEvent(d, { agent: 'codex', session_id: 'c-1', ...body });
        await codex({ event: 'turn_start', text: 'check' });
        const first = await codex(bashPreTool('false', 'call-1'));
        const runId = first.body.run_id as string;
        await codex(bashPreTool('true', 'call-2'));
        await codex(bashPreTool('exit 3', 'call-3'));
        // What Codex 0.169 reports: the output, no exit code; the hook client calls it succeeded.
        await codex(bashPostTool('false', 'call-1', 'succeeded', ''));
        await codex(bashPostTool('true', 'call-2', 'succeeded', ''));
        // A report that said failed stays as it was.
        await codex(bashPostTool('exit 3', 'call-3', 'failed', 'exit 3'));
        const ranCalls = [
          { tool_use_id: 'call-1', tool_name: 'Bash', outcome: 'failed', output: 'exit code 1' },
          { tool_use_id: 'call-2', tool_name: 'Bash', outcome: 'succeeded', output: '' },
          { tool_use_id: 'call-3', tool_name: 'Bash', outcome: 'failed', output: 'exit code 3' },
        ];
        const taskStates = async () =>
          ((await d.member.get(`${d.ws}/runs/${runId}/tasks`)).body.tasks as StoryTask[]).map(
            (task) => [task.key, task.state, task.error?.detail ?? null],
          );
        expect(await taskStates()).toEqual([
          ['t1', 'succeeded', null],
          ['t2', 'succeeded', null],
          ['t3', 'failed', 'exit 3'],
        ]);
        expect((await codex({ event: 'stop', text: 'done', ran_calls: ranCalls })).status).toBe(
          200,
        );
        const corrected = [
          ['t1', 'failed', 'the codex transcript shows it failed: exit code 1'],
          ['t2', 'succeeded', null],
          ['t3', 'failed', 'exit 3'],
        ];
        expect(await taskStates()).toEqual(corrected);
        const failures = (
          (await d.member.get(`${d.ws}/runs/${runId}/events`)).body.events as StoryEvent[]
        ).filter((e) => e.type === 'task.failed');
        expect(failures).toHaveLength(2);
        // The same stop again changes nothing, and no call counts as unseen.
        await codex({ event: 'stop', text: 'done', ran_calls: ranCalls });
        expect(await taskStates()).toEqual(corrected);
        expect(await unstagedOf(runId)).toEqual([]);
      });

      it('refuses a malformed list with a stable code and records nothing', async () => {
        d = await kernels.deploy(backend);
        await d.agent.put(PROFILE, { approval_mode: 'rules', approval_rules: RULES });
        const granted = await event(bashPreTool('ls', 'tu-1'));
        const runId = granted.body.run_id as string;
        const bad = await event({
          event: 'stop',
          text: 'done',
          ran_calls: [{ tool_use_id: 'tu-7', tool_name: 'Write', outcome: 'maybe' }],
        });
        expect(bad.status).toBe(400);
        expect(bad.body.error.code).toBe('invalid_input');
        const tooMany = await event({
          event: 'stop',
          text: 'done',
          ran_calls: Array.from({ length: 501 }, (_, i) => ({
            tool_use_id: `x${i}`,
            tool_name: 'Bash',
          })),
        });
        expect(tooMany.status).toBe(400);
        expect(await unstagedOf(runId)).toEqual([]);
      });
    },
  );
}
