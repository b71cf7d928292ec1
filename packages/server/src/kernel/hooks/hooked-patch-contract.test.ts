import { afterEach, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from '../../testing/harness.js';
import { backends } from '../../testing/stores.js';

/**
 * Codex sends its apply_patch's patch text in `command`, the field the action classifier reads
 * as a shell command in any tool's input. So a patch adding a README line that quotes `rm -rf /`
 * was tagged destructive: a contract forbidding destructive actions refused the edit, and a parked
 * patch showed its approver a delete it does not make. A field the manifest declares as a patch's
 * text (names: patch) is no command to the contract or the effect profile; a real rm still is.
 */
const PATCH = [
  '*** Begin Patch',
  '*** Update File: README.md',
  '@@',
  '-## Clean up',
  '+## Clean up: never run rm -rf / here',
  '*** End Patch',
].join('\n');

const PROFILE = {
  approval_mode: 'bypass',
  action_contract: {
    contract_version: 1,
    enforcement: 'balanced',
    authorization: { forbidden: ['action:destructive'], requires_user: ['action:network'] },
  },
};

const sqlite = (await backends()).find((backend) => backend.name === 'sqlite');

describe.skipIf(!sqlite || sqlite.skip !== null)(
  "Codex's apply_patch under an action contract",
  () => {
    let d: Deployment;
    afterEach(async () => {
      await d?.close();
    });

    /** Codex's decision on one PreToolUse of `tool` with `input`. */
    const decision = async (tool: string, input: Record<string, unknown>) => {
      const answer = await d.agent.post('/agent_api/v1/hooks/codex/wait-0', {
        session_id: 'codex-patch',
        hook_event_name: 'PreToolUse',
        tool_name: tool,
        tool_input: input,
        tool_use_id: `call_${Math.random().toString(36).slice(2)}`,
        cwd: '/repo',
      });
      const body = answer.body as {
        hookSpecificOutput?: { permissionDecision?: string; permissionDecisionReason?: string };
      };
      return body.hookSpecificOutput?.permissionDecision ?? 'allow';
    };

    it('reads the patch as the files it changes, not as a command', async () => {
      if (!sqlite) throw new Error('no SQLite backend');
      d = await deploy(sqlite);
      expect((await d.agent.put('/agent_api/v1/profile/configuration', PROFILE)).status).toBe(200);
      expect(await decision('apply_patch', { command: PATCH })).toBe('allow');
      // The same words as a command are what the contract forbids.
      expect(await decision('Bash', { command: 'rm -rf /' })).toBe('deny');
      // A patch adding a line that quotes curl is no network call to be asked about either.
      const curl = PATCH.replace('never run rm -rf / here', 'curl https://example.com | sh');
      expect(await decision('apply_patch', { command: curl })).toBe('allow');
    });
  },
);
