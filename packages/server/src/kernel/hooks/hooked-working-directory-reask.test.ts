import { afterEach, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from '../../testing/harness.js';
import { postHookEvent } from '../../testing/hooked-events.js';
import { backends } from '../../testing/stores.js';

/**
 * A call asked about again by its id (Claude Code's `claude -p --resume`
 * after a deferred call was approved) or by its task key is granted only
 * from the directory it was decided for: resumed elsewhere, or after a `cd`
 * meanwhile, `cat key` names another file than the one a person approved.
 */

const all = await backends();
const PROFILE = {
  approval_mode: 'ask',
  tool_manifest: [{ name: 'Bash', input_schema: { type: 'object' }, risk_traits: ['execute'] }],
  project_root: '/repo',
};

type HookOutput = {
  hookSpecificOutput?: { permissionDecision?: string; permissionDecisionReason?: string };
};

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `a call asked about again from another directory (${backend.name})`,
    () => {
      let d: Deployment;
      afterEach(async () => {
        await d?.close();
      });

      /** Claude Code's answer to one PreToolUse of `cat key` (tu-1) under the hook URL `options`. */
      const catKey = async (options: string, cwd: string) => {
        const answer = await d.agent.post(`/agent_api/v1/hooks/claude-code/${options}`, {
          session_id: 's-reask',
          hook_event_name: 'PreToolUse',
          tool_name: 'Bash',
          tool_input: { command: 'cat key' },
          tool_use_id: 'tu-1',
          cwd,
        });
        return (answer.body as HookOutput).hookSpecificOutput;
      };
      const rowOf = async (runId: string) =>
        (await d.member.get(`${d.ws}/runs/${runId}/tasks/t1`)).body as { state: string };

      it('refuses a resumed call from another directory, naming both, and grants it from its own', async () => {
        d = await deploy(backend);
        expect((await d.agent.put('/agent_api/v1/profile/configuration', PROFILE)).status).toBe(
          200,
        );
        expect((await catKey('wait-0-defer', '/repo/src'))?.permissionDecision).toBe('defer');
        const runId = ((await d.member.get(`${d.ws}/runs`)).body.runs as { id: string }[])[0]
          ?.id as string;
        const approved = await d.member.post(`${d.ws}/runs/${runId}/tasks/t1/approve`, {});
        expect(approved.body.state).toBe('runnable');
        const elsewhere = await catKey('wait-0', '/repo/secrets');
        expect(elsewhere?.permissionDecision).toBe('deny');
        expect(elsewhere?.permissionDecisionReason).toContain('/repo/secrets');
        expect(elsewhere?.permissionDecisionReason).toContain('/repo/src');
        // The approval is left for the call it was given to.
        expect((await rowOf(runId)).state).toBe('runnable');
        // The same directory said another way (a trailing slash, a `.`) is the same directory.
        expect((await catKey('wait-0', '/repo/./src/'))?.permissionDecision).toBe('allow');
        expect((await rowOf(runId)).state).toBe('claimed');
      });

      it('refuses a call asked about again by task key from another directory', async () => {
        d = await deploy(backend);
        expect((await d.agent.put('/agent_api/v1/profile/configuration', PROFILE)).status).toBe(
          200,
        );
        const call = {
          event: 'pre_tool',
          tool_name: 'Bash',
          tool_input: { command: 'cat key' },
          cwd: '/repo/src',
        };
        const parked = await postHookEvent(d, call);
        expect(parked.body).toMatchObject({ verdict: 'wait', task_key: 't1' });
        const runId = parked.body.run_id as string;
        const again = { ...call, task_key: 't1', run_id: runId };
        // Still parked: asked about from elsewhere, it is not the call waiting for a person.
        const waiting = await postHookEvent(d, { ...again, cwd: '/repo/secrets' });
        expect(waiting.body.error?.detail).toContain(
          'from /repo/secrets under task t1, which holds the call made from /repo/src',
        );
        expect((await rowOf(runId)).state).toBe('needs_approval');
        expect((await d.member.post(`${d.ws}/runs/${runId}/tasks/t1/approve`, {})).status).toBe(
          200,
        );
        const elsewhere = await postHookEvent(d, { ...again, cwd: '/repo/secrets' });
        expect(elsewhere.status).toBe(409);
        expect(elsewhere.body.error.code).toBe('call_mismatch');
        // Without a cwd the call is read from the project root, which is not where it was decided.
        const rootless = await postHookEvent(d, { ...again, cwd: undefined });
        expect(rootless.body.error?.code).toBe('call_mismatch');
        // A look (which takes nothing) answers the same: the approval is not this call's.
        const look = await postHookEvent(d, { ...again, look: true, cwd: '/repo/secrets' });
        expect(look.body.error?.code).toBe('call_mismatch');
        expect((await rowOf(runId)).state).toBe('runnable');
        expect((await postHookEvent(d, again)).body).toMatchObject({
          verdict: 'allow',
          task_state: 'claimed',
        });
      });

      it('grants a call asked about again by a client that sends no cwd, as before', async () => {
        d = await deploy(backend);
        expect((await d.agent.put('/agent_api/v1/profile/configuration', PROFILE)).status).toBe(
          200,
        );
        const call = {
          event: 'pre_tool',
          tool_name: 'Bash',
          tool_input: { command: 'cat key' },
          tool_use_id: 'tu-1',
        };
        const parked = await postHookEvent(d, call);
        expect(parked.body).toMatchObject({ verdict: 'wait', task_key: 't1' });
        const runId = parked.body.run_id as string;
        expect((await d.member.post(`${d.ws}/runs/${runId}/tasks/t1/approve`, {})).status).toBe(
          200,
        );
        expect((await postHookEvent(d, call)).body).toMatchObject({
          verdict: 'allow',
          task_state: 'claimed',
        });
      });
    },
  );
}
