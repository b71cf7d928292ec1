import { afterEach, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from '../../testing/harness.js';
import { backends } from '../../testing/stores.js';

/**
 * An identical call is handed the row of an earlier one made from the same
 * working directory, even when an older identical row of another directory
 * waits too: after `cd secrets` and back, `cat key` from /repo/src is the
 * call a person approved there, not a new one to ask about again.
 */

const all = await backends();
const PROFILE = {
  approval_mode: 'ask',
  tool_manifest: [{ name: 'Bash', input_schema: { type: 'object' }, risk_traits: ['execute'] }],
  project_root: '/repo',
};

type HookOutput = { hookSpecificOutput?: { permissionDecision?: string } };

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `an identical call among rows of several directories (${backend.name})`,
    () => {
      let d: Deployment;
      afterEach(async () => {
        await d?.close();
      });

      const catKey = async (id: string, cwd: string) => {
        const answer = await d.agent.post('/agent_api/v1/hooks/claude-code/wait-0', {
          session_id: 's-identical',
          hook_event_name: 'PreToolUse',
          tool_name: 'Bash',
          tool_input: { command: 'cat key' },
          tool_use_id: id,
          cwd,
        });
        return (answer.body as HookOutput).hookSpecificOutput?.permissionDecision;
      };

      it("takes the same directory's row, not the oldest identical one", async () => {
        d = await deploy(backend);
        expect((await d.agent.put('/agent_api/v1/profile/configuration', PROFILE)).status).toBe(
          200,
        );
        expect(await catKey('tu-1', '/repo/secrets')).toBe('deny');
        expect(await catKey('tu-2', '/repo/src')).toBe('deny');
        const runId = ((await d.member.get(`${d.ws}/runs`)).body.runs as { id: string }[])[0]
          ?.id as string;
        const tasks = `${d.ws}/runs/${runId}/tasks`;
        expect((await d.member.post(`${tasks}/t2/approve`, {})).body.state).toBe('runnable');
        // The retry from /repo/src is the call approved there.
        expect(await catKey('tu-3', '/repo/src')).toBe('allow');
        // The retry from /repo/secrets waits on its own parked row, asking no one twice.
        expect(await catKey('tu-4', '/repo/secrets')).toBe('deny');
        const rows = (await d.member.get(tasks)).body.tasks as { key: string; state: string }[];
        expect(rows.map((row) => `${row.key}:${row.state}`)).toEqual([
          't1:needs_approval',
          't2:claimed',
        ]);
      });
    },
  );
}
