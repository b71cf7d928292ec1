import { afterEach, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from '../../testing/harness.js';
import { backends } from '../../testing/stores.js';

/**
 * A profile people write by hand sets its rules and project root but rarely the agent's tool
 * manifest, which says which input fields of each tool name a path. Without one no path rule read
 * a hooked agent's tools: under a deny of secrets/**, Claude Code's Read of /repo/secrets/key was
 * granted. A hooked agent's turn now runs under the manifest Airlock ships for that agent when the
 * profile declares none; a profile's own manifest still wins.
 */
const HOUSE = {
  approval_mode: 'bypass',
  project_root: '/repo',
  permission_rule_set: 'house',
  custom_rule_sets: [
    { id: 'house', rules: [{ verdict: 'deny', targets: ['secrets/**'] }, { verdict: 'allow' }] },
  ],
};

for (const backend of await backends()) {
  describe.skipIf(backend.skip !== null)(
    `a hooked agent's profile that declares no tool manifest (${backend.name})`,
    () => {
      let d: Deployment;
      afterEach(async () => {
        await d?.close();
      });

      /** Claude Code's decision on one PreToolUse of `tool` with `input`, in session `session`. */
      const decision = async (session: string, tool: string, input: Record<string, unknown>) => {
        const answer = await d.agent.post('/agent_api/v1/hooks/claude-code/wait-0', {
          session_id: session,
          hook_event_name: 'PreToolUse',
          tool_name: tool,
          tool_input: input,
          tool_use_id: `toolu_${Math.random().toString(36).slice(2)}`,
          cwd: '/repo',
        });
        const body = answer.body as { hookSpecificOutput?: { permissionDecision?: string } };
        return body.hookSpecificOutput?.permissionDecision;
      };

      it("reads the agent's tools by the manifest shipped for it", async () => {
        d = await deploy(backend);
        expect((await d.agent.put('/agent_api/v1/profile/configuration', HOUSE)).status).toBe(200);
        expect(await decision('s1', 'Read', { file_path: '/repo/secrets/key' })).toBe('deny');
        expect(
          await decision('s1', 'Edit', {
            file_path: 'secrets/key',
            old_string: 'a',
            new_string: 'b',
          }),
        ).toBe('deny');
        expect(await decision('s1', 'Read', { file_path: '/repo/src/a.ts' })).toBe('allow');
        // The run's frozen configuration says which manifest it ran under.
        const runs = (await d.member.get(`${d.ws}/runs`)).body.runs as { id: string }[];
        const run = (await d.member.get(`${d.ws}/runs/${runs[0]?.id}`)).body as {
          configuration?: { tool_manifest?: { name: string }[] };
        };
        expect(JSON.stringify(run)).toContain('"name":"Read"');
      });

      it("keeps a profile's own manifest", async () => {
        d = await deploy(backend);
        const own = {
          ...HOUSE,
          tool_manifest: [
            {
              name: 'Read',
              input_schema: { type: 'object' },
              risk_traits: ['read'],
              targets: [{ pointer: '/path', kind: 'path' }],
            },
          ],
        };
        expect((await d.agent.put('/agent_api/v1/profile/configuration', own)).status).toBe(200);
        // Its Read names its path in /path: file_path is read by no rule of this profile.
        expect(await decision('s2', 'Read', { path: '/repo/secrets/key' })).toBe('deny');
        expect(await decision('s2', 'Read', { file_path: '/repo/secrets/key' })).toBe('allow');
      });
    },
  );
}
