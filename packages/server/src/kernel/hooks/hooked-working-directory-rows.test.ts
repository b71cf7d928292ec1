import { afterEach, describe, expect, it } from 'vitest';
import { type Deployment, deploy, putOverlay } from '../../testing/harness.js';
import { postHookEvent } from '../../testing/hooked-events.js';
import { backends } from '../../testing/stores.js';

/**
 * A hooked call's working directory is kept on its row: a person's edit is
 * decided again from the directory the agent stood in, and an approved call
 * is granted to its identical retry only from that same directory (after
 * `cd secrets`, `cat key` is another file than the one a person approved).
 */

const all = await backends();
const MANIFEST = [
  { name: 'Bash', input_schema: { type: 'object' }, risk_traits: ['execute'] },
  {
    name: 'Read',
    input_schema: { type: 'object' },
    risk_traits: ['read'],
    targets: [{ pointer: '/file_path', kind: 'path', names: 'file' }],
  },
];
const PROFILE = {
  approval_mode: 'bypass',
  tool_manifest: MANIFEST,
  project_root: '/repo',
  permission_rule_set: 'house',
  custom_rule_sets: [
    {
      id: 'house',
      rules: [
        { verdict: 'deny', targets: ['secrets/**'] },
        { verdict: 'ask', tools: ['Bash', 'Read'] },
      ],
    },
  ],
};

type HookOutput = { hookSpecificOutput?: { permissionDecision?: string } };

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `a hooked row's working directory (${backend.name})`,
    () => {
      let d: Deployment;
      afterEach(async () => {
        await d?.close();
      });

      /** Claude Code's decision on one PreToolUse. */
      const decision = async (payload: Record<string, unknown>) => {
        const answer = await d.agent.post('/agent_api/v1/hooks/claude-code/wait-0', {
          session_id: 's-cwd-rows',
          hook_event_name: 'PreToolUse',
          ...payload,
        });
        return (answer.body as HookOutput).hookSpecificOutput?.permissionDecision;
      };
      const onlyRun = async () =>
        ((await d.member.get(`${d.ws}/runs`)).body.runs as { id: string }[])[0]?.id;

      it('grants an approved call to its retry from the same directory only', async () => {
        d = await deploy(backend);
        expect((await d.agent.put('/agent_api/v1/profile/configuration', PROFILE)).status).toBe(
          200,
        );
        const cat = (id: string, cwd: string) => ({
          tool_name: 'Bash',
          tool_input: { command: 'cat key' },
          tool_use_id: id,
          cwd,
        });
        expect(await decision(cat('tu-1', '/repo/src'))).toBe('deny');
        const run = await onlyRun();
        const approved = await d.member.post(`${d.ws}/runs/${run}/tasks/t1/approve`, {});
        expect(approved.body.state).toBe('runnable');
        // The same command after cd secrets reads another file: it is not the approved call.
        expect(await decision(cat('tu-2', '/repo/secrets'))).not.toBe('allow');
        expect(await decision(cat('tu-3', '/repo/src'))).toBe('allow');
        const tasks = (await d.member.get(`${d.ws}/runs/${run}/tasks`)).body.tasks as {
          key: string;
          state: string;
        }[];
        expect(tasks.map((row) => `${row.key}:${row.state}`)).toEqual([
          't1:claimed',
          't2:needs_approval',
        ]);
      });

      it("decides a person's edit from the directory the agent said", async () => {
        d = await deploy(backend);
        expect((await d.agent.put('/agent_api/v1/profile/configuration', PROFILE)).status).toBe(
          200,
        );
        const read = (filePath: string) => ({
          tool_name: 'Read',
          tool_input: { file_path: filePath },
          tool_use_id: 'tu-1',
          cwd: '/repo/secrets',
        });
        expect(await decision(read('/repo/src/a'))).toBe('deny');
        const task = `${d.ws}/runs/${await onlyRun()}/tasks/t1`;
        // `key` from /repo/secrets is /repo/secrets/key, under the deny: the edit is refused.
        const edited = await d.member.post(`${task}/approve`, { tool_input: { file_path: 'key' } });
        expect(edited.status).toBe(422);
        expect(edited.body.error.code).toBe('edit_refused');
        const fine = await d.member.post(`${task}/approve`, {
          tool_input: { file_path: '../src/b' },
        });
        expect(fine.body.state).toBe('runnable');
      });

      it('binds a guardrail written after the approval from the directory the agent said', async () => {
        d = await deploy(backend);
        const profile = { approval_mode: 'ask', tool_manifest: MANIFEST, project_root: '/repo' };
        expect((await d.agent.put('/agent_api/v1/profile/configuration', profile)).status).toBe(
          200,
        );
        const read = {
          event: 'pre_tool',
          tool_name: 'Read',
          tool_input: { file_path: 'key' },
          tool_use_id: 'tu-1',
          cwd: '/repo/secrets',
        };
        const parked = await postHookEvent(d, read);
        expect(parked.body).toMatchObject({ verdict: 'wait', task_key: 't1' });
        const task = `${d.ws}/runs/${parked.body.run_id as string}/tasks/t1`;
        expect((await d.member.post(`${task}/approve`, {})).status).toBe(200);
        const guardrail = [
          {
            ruleSetId: 'supervised',
            rules: [{ verdict: 'deny', guardrail: true, targets: ['secrets/**'] }],
          },
        ];
        expect((await putOverlay(d.member, `${d.ws}/overlays/user/me`, guardrail)).status).toBe(
          200,
        );
        const retry = await postHookEvent(d, { ...read, tool_use_id: 'tu-2' });
        expect(retry.body).toMatchObject({ verdict: 'deny', task_key: 't1' });
        expect((await d.member.get(task)).body.state).toBe('failed');
      });
    },
  );
}
