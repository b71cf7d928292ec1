import { afterEach, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from '../../testing/harness.js';
import { backends } from '../../testing/stores.js';

/**
 * Claude Code keeps its Bash tool's working directory between calls and says
 * it as `cwd` in every hook payload: after `cd secrets`, `cat key` reads
 * `/repo/secrets/key`. The stage reads a call's relative paths from there,
 * so the call is not granted under a deny of `secrets/**` as `/repo/key`.
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
    { id: 'house', rules: [{ verdict: 'deny', targets: ['secrets/**'] }, { verdict: 'allow' }] },
  ],
};

type HookOutput = { hookSpecificOutput?: { permissionDecision?: string } };

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `a hooked call's working directory (${backend.name})`,
    () => {
      let d: Deployment;
      afterEach(async () => {
        await d?.close();
      });

      /** Claude Code's decision on one PreToolUse; its reason is printed when it refuses. */
      const decision = async (payload: Record<string, unknown>) => {
        const answer = await d.agent.post('/agent_api/v1/hooks/claude-code/wait-0', {
          session_id: 's-cwd',
          hook_event_name: 'PreToolUse',
          ...payload,
        });
        return (answer.body as HookOutput).hookSpecificOutput?.permissionDecision;
      };

      it('reads relative paths from the cwd the agent sends, not the project root', async () => {
        d = await deploy(backend);
        expect((await d.agent.put('/agent_api/v1/profile/configuration', PROFILE)).status).toBe(
          200,
        );
        const bash = (command: string, id: string, cwd: string) => ({
          tool_name: 'Bash',
          tool_input: { command },
          tool_use_id: id,
          cwd,
        });
        expect(await decision(bash('cat README.md', 'tu-1', '/repo'))).toBe('allow');
        expect(await decision(bash('cat key', 'tu-2', '/repo/src'))).toBe('allow');
        expect(await decision(bash('cat key', 'tu-3', '/repo/secrets'))).not.toBe('allow');
        const read = { tool_name: 'Read', tool_input: { file_path: 'key' } };
        expect(await decision({ ...read, tool_use_id: 'tu-4', cwd: '/repo/secrets' })).toBe('deny');
        // A cwd that cannot be placed (outside the project, or not absolute) asks, never grants.
        expect(await decision(bash('head key', 'tu-5', '/elsewhere'))).not.toBe('allow');
        expect(await decision(bash('tail key', 'tu-6', 'secrets'))).not.toBe('allow');
        const runs = (await d.member.get(`${d.ws}/runs`)).body.runs as { id: string }[];
        const rows = (await d.member.get(`${d.ws}/runs/${runs[0]?.id}/tasks`)).body.tasks as {
          key: string;
          state: string;
          working_directory?: string;
        }[];
        // A person deciding sees where the call would run: `cat key` in /repo/secrets.
        expect(rows.map((row) => row.working_directory)).toEqual([
          '/repo',
          '/repo/src',
          '/repo/secrets',
          '/repo/secrets',
          '/elsewhere',
          'secrets',
        ]);
        const parked = (await d.member.get(`${d.ws}/decisions`)).body.decisions as {
          key: string;
          working_directory?: string;
        }[];
        expect(parked.find((row) => row.key === 't3')?.working_directory).toBe('/repo/secrets');
        expect(rows.map((row) => `${row.key}:${row.state}`)).toEqual([
          't1:claimed',
          't2:claimed',
          't3:needs_approval',
          't4:failed',
          't5:needs_approval',
          't6:needs_approval',
        ]);
      });

      it('refuses a cwd past 4096 characters, planting nothing', async () => {
        d = await deploy(backend);
        expect((await d.agent.put('/agent_api/v1/profile/configuration', PROFILE)).status).toBe(
          200,
        );
        const long = `/repo/${'d'.repeat(4100)}`;
        const payload = { tool_name: 'Bash', tool_input: { command: 'ls' }, cwd: long };
        expect(await decision({ ...payload, tool_use_id: 'tu-1' })).toBe('deny');
        expect((await d.member.get(`${d.ws}/runs`)).body.runs).toEqual([]);
      });
    },
  );
}
