import { afterEach, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from '../../testing/harness.js';
import { backends } from '../../testing/stores.js';

/**
 * What the kernel's own hook endpoints (Claude Code's HTTP hooks, the shell
 * clients' posts) read from an agent's payload is held to what
 * `hooks.event` takes: the same bounds, and text kept the same way on
 * SQLite and PostgreSQL (NUL and lone surrogates as U+FFFD), so an event a
 * store cannot keep is never refused for it, nor kept as sent by the other.
 */

const all = await backends();
const PROFILE = '/agent_api/v1/profile/configuration';
const RULES = [{ tool: 'Bash', path: 'command', match: '*', verdict: 'allow' }];

interface StoryTask {
  key: string;
  state: string;
  result: unknown;
  error: { code: string; detail: string } | null;
}

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `an agent's payload read natively (${backend.name})`,
    () => {
      let d: Deployment;
      afterEach(async () => {
        await d?.close();
      });

      const hook = async (payload: Record<string, unknown>) =>
        (
          await d.agent.post('/agent_api/v1/hooks/claude-code/wait-1000', {
            session_id: 's-1',
            ...payload,
          })
        ).body as Record<
          string,
          { permissionDecision?: string; permissionDecisionReason?: string }
        >;
      const bash = (command: string, id: string) => ({
        tool_name: 'Bash',
        tool_input: { command },
        tool_use_id: id,
      });
      async function onlyRun() {
        const [run] = (await d.member.get(`${d.ws}/runs`)).body.runs as { id: string }[];
        const detail = (await d.member.get(`${d.ws}/runs/${run?.id}`)).body;
        const tasks = (await d.member.get(`${d.ws}/runs/${run?.id}/tasks`)).body
          .tasks as StoryTask[];
        return { state: detail.state as string, tasks };
      }

      it('a report and a stop holding NUL or a lone surrogate are recorded, as U+FFFD', async () => {
        d = await deploy(backend);
        await d.agent.put(PROFILE, { approval_mode: 'rules', approval_rules: RULES });
        for (const [command, id] of [
          ['ls', 'tu-1'],
          ['make', 'tu-2'],
        ] as const) {
          const granted = await hook({ hook_event_name: 'PreToolUse', ...bash(command, id) });
          expect(granted.hookSpecificOutput?.permissionDecision).toBe('allow');
        }
        expect(
          await hook({
            hook_event_name: 'PostToolUse',
            ...bash('ls', 'tu-1'),
            tool_response: 'a\u0000b\ud800',
          }),
        ).toEqual({});
        expect(
          await hook({
            hook_event_name: 'PostToolUseFailure',
            ...bash('make', 'tu-2'),
            error: 'bad\u0000',
          }),
        ).toEqual({});
        expect(
          await hook({ hook_event_name: 'Stop', last_assistant_message: 'done\u0000' }),
        ).toEqual({});
        const run = await onlyRun();
        expect(run.state).toBe('completed');
        expect(run.tasks).toEqual([
          expect.objectContaining({ key: 't1', state: 'succeeded' }),
          expect.objectContaining({
            key: 't2',
            state: 'failed',
            error: expect.objectContaining({ code: 'tool_failed', detail: 'bad\ufffd' }),
          }),
        ]);
        expect(JSON.stringify(run.tasks[0]?.result)).toContain('a\ufffdb\ufffd');
      });

      it('a call id past the bound hooks.event keeps is refused, and nothing is planted', async () => {
        d = await deploy(backend);
        await d.agent.put(PROFILE, { approval_mode: 'rules', approval_rules: RULES });
        const refused = await hook({
          hook_event_name: 'PreToolUse',
          ...bash('ls', 'y'.repeat(300)),
        });
        expect(refused.hookSpecificOutput).toMatchObject({
          permissionDecision: 'deny',
          permissionDecisionReason: expect.stringMatching(
            /^Airlock could not decide this call, so it was not run: invalid_input: \/tool_use_id: /,
          ),
        });
        expect((await d.member.get(`${d.ws}/runs`)).body.runs).toEqual([]);
      });
    },
  );
}
