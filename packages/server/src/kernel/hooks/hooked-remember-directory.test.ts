import { afterEach, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from '../../testing/harness.js';
import { backends } from '../../testing/stores.js';

/**
 * "Remember exactly this call" on an approval keeps an allow rule for the
 * call's tool and input. A hooked agent's relative paths are read from the
 * directory it makes the call in, so `cat key` approved from /repo/src is not
 * `cat key` from /repo/secrets: the remembered rule grants the call from the
 * directory it was approved in only, and the deny of `secrets/**` still binds
 * the same words from there.
 */

const all = await backends();
const PROFILE = {
  approval_mode: 'bypass',
  tool_manifest: [{ name: 'Bash', input_schema: { type: 'object' }, risk_traits: ['execute'] }],
  project_root: '/repo',
  permission_rule_set: 'house',
  custom_rule_sets: [
    {
      id: 'house',
      rules: [
        { verdict: 'deny', targets: ['secrets/**'] },
        { verdict: 'ask', tools: ['Bash'] },
      ],
    },
  ],
};

type HookOutput = { hookSpecificOutput?: { permissionDecision?: string } };

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `a remembered call of a hooked agent (${backend.name})`,
    () => {
      let d: Deployment;
      afterEach(async () => {
        await d?.close();
      });

      /** Claude Code's decision on `command` made as call `id` from `cwd`. */
      const decision = async (command: string, id: string, cwd: string) => {
        const answer = await d.agent.post('/agent_api/v1/hooks/claude-code/wait-0', {
          session_id: 's-remember',
          hook_event_name: 'PreToolUse',
          tool_name: 'Bash',
          tool_input: { command },
          tool_use_id: id,
          cwd,
        });
        return (answer.body as HookOutput).hookSpecificOutput?.permissionDecision;
      };

      it('grants the remembered call from its own directory only', async () => {
        d = await deploy(backend);
        expect((await d.agent.put('/agent_api/v1/profile/configuration', PROFILE)).status).toBe(
          200,
        );
        expect(await decision('cat key', 'tu-1', '/repo/src')).toBe('deny');
        const runId = ((await d.member.get(`${d.ws}/runs`)).body.runs as { id: string }[])[0]
          ?.id as string;
        const approved = await d.member.post(`${d.ws}/runs/${runId}/tasks/t1/approve`, {
          remember: { scope: 'conversation' },
        });
        expect(approved.status).toBe(200);
        // The same words from the directory the person approved them in: granted, unasked.
        expect(await decision('cat key', 'tu-2', '/repo/src/')).toBe('allow');
        // From the guarded directory they read secrets/key: the deny binds as before.
        expect(await decision('cat key', 'tu-3', '/repo/secrets')).toBe('deny');
        // From another directory they are another call: asked, not granted.
        const elsewhere = await decision('cat key', 'tu-4', '/repo/docs');
        expect(elsewhere).not.toBe('allow');
      });
    },
  );
}
