import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createCredential } from '../store/accounts.js';
import { client, type Deployment, putOverlay, sharedKernels, waitFor } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const all = await backends();
const PROFILE = '/agent_api/v1/profile/configuration';

const MANIFEST = [
  {
    name: 'write_file',
    input_schema: {
      type: 'object',
      required: ['path', 'content'],
      properties: { path: { type: 'string' }, content: { type: 'string' } },
    },
    risk_traits: ['write'],
    targets: [{ pointer: '/path', kind: 'path' }],
  },
  {
    name: 'bash',
    input_schema: {
      type: 'object',
      required: ['command'],
      properties: { command: { type: 'string' } },
    },
    risk_traits: ['execute'],
  },
];

const write = (path: string) => ({ name: 'write_file', input: { path, content: 'x' } });
const bash = (command: string) => ({ name: 'bash', input: { command } });

/** The guardrails a member keeps: filed in the `supervised` group, they bind every set. */
const GUARDRAILS = [
  {
    ruleSetId: 'supervised',
    rules: [
      {
        verdict: 'deny',
        guardrail: true,
        risks: ['write'],
        targets: ['src/prod/**'],
        reason: 'production code changes go through review',
      },
      {
        verdict: 'deny',
        guardrail: true,
        tools: ['bash'],
        argument_patterns: { '/command': '*rm -rf*' },
        reason: 'no recursive deletes',
      },
    ],
  },
];

async function putOwnOverlay(d: Deployment, token: string, groups: unknown[]) {
  const put = await putOverlay(client(d.url, token), `${d.ws}/overlays/user/me`, groups);
  expect(put.status).toBe(200);
}

/** Waits until a run's rows stopped moving through the stage and answers their states. */
async function settledTasks(d: Deployment, runId: string, count: number) {
  return waitFor(async () => {
    const tasks = (await d.member.get(`${d.ws}/runs/${runId}/tasks`)).body.tasks as {
      state: string;
      error?: { code: string; detail: string } | null;
      decision?: { layers?: { layer: string; rule: Record<string, unknown> | null }[] };
    }[];
    return tasks.length === count && tasks.every((t) => t.state !== 'ready') ? tasks : null;
  });
}

async function agentTurn(d: Deployment, calls: unknown[]) {
  const conversation = (await d.agent.post('/agent_api/v1/conversations')).body.id as string;
  const started = await d.agent.post(`/agent_api/v1/conversations/${conversation}/inputs`, {
    input: 'go',
    provider: { kind: 'scripted', rounds: [{ tool_calls: calls }, { final: 'done' }] },
  });
  expect(started.status).toBe(201);
  return started.body.id as string;
}

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`guardrails bind the workspace (${backend.name})`, () => {
    let d: Deployment;
    const kernels = sharedKernels();
    afterAll(() => kernels.close());
    afterEach(async () => {
      await d?.close();
    });

    it("a member's guardrail denies an agent-created autonomous run's write to src/prod/**", async () => {
      d = await kernels.deploy(backend);
      await putOwnOverlay(d, d.tokens.member, GUARDRAILS);
      const put = await d.agent.put(PROFILE, {
        approval_mode: 'bypass',
        tool_manifest: MANIFEST,
        permission_rule_set: 'autonomous',
        project_root: '/repo',
      });
      expect(put.status).toBe(200);
      const runId = await agentTurn(d, [write('src/prod/db.ts'), write('src/dev/db.ts')]);
      const tasks = await settledTasks(d, runId, 2);
      expect(tasks.map((t) => t.state)).toEqual(['failed', 'runnable']);
      expect(tasks[0]!.error).toEqual({
        code: 'approval_denied',
        detail: 'production code changes go through review',
      });
      const layer = tasks[0]!.decision?.layers?.find((l) => l.layer === 'rule_set');
      expect(layer?.rule).toMatchObject({ scope: 'user', group: 0, index: 0 });
      expect(String(layer?.rule?.owner)).toMatch(/^member:/);
    });

    it('the agent cannot escape by selecting another set, a missing custom set, or none', async () => {
      d = await kernels.deploy(backend);
      await putOwnOverlay(d, d.tokens.member, GUARDRAILS);
      const profiles = [
        { permission_rule_set: 'planning' },
        { permission_rule_set: 'no-such-set' },
        {
          permission_rule_set: 'loose',
          custom_rule_sets: [{ id: 'loose', rules: [{ verdict: 'allow' }] }],
        },
        {},
      ];
      for (const chosen of profiles) {
        const put = await d.agent.put(PROFILE, {
          approval_mode: 'bypass',
          tool_manifest: MANIFEST,
          project_root: '/repo',
          ...chosen,
        });
        expect(put.status).toBe(200);
        const runId = await agentTurn(d, [write('src/prod/db.ts')]);
        const [task] = await settledTasks(d, runId, 1);
        expect({ chosen, state: task!.state, error: task!.error?.detail }).toEqual({
          chosen,
          state: 'failed',
          error: 'production code changes go through review',
        });
      }
    });

    it("a standalone agent run with no manifest and no set meets every member's guardrails", async () => {
      d = await kernels.deploy(backend);
      // A second member (an admin: guardrails bind the workspace) keeps the guardrails; the run is the agent's, not theirs.
      const other = await createCredential(d.airlock.store, {
        workspaceId: d.workspaceId,
        kind: 'member',
        agentApplicationId: null,
        role: 'admin',
      });
      await putOwnOverlay(d, other.token, GUARDRAILS);
      const created = await d.agent.post(`${d.ws}/runs`, {
        approval_mode: 'bypass',
        approval_rules: [],
        input: 'clean up',
        provider: {
          kind: 'scripted',
          rounds: [{ tool_calls: [bash('rm -rf ./build'), bash('ls')] }, { final: 'done' }],
        },
      });
      expect(created.status).toBe(201);
      const tasks = await settledTasks(d, created.body.id, 2);
      expect(tasks.map((t) => t.state)).toEqual(['failed', 'runnable']);
      expect(tasks[0]!.error?.detail).toBe('no recursive deletes');
    });

    it("ordinary user rules stay with their member: another member's allow grants nothing to an agent run", async () => {
      d = await kernels.deploy(backend);
      await putOwnOverlay(d, d.tokens.member, [
        { ruleSetId: 'supervised', rules: [{ verdict: 'allow', risks: ['write'] }] },
      ]);
      const put = await d.agent.put(PROFILE, {
        approval_mode: 'bypass',
        tool_manifest: MANIFEST,
        permission_rule_set: 'supervised',
        project_root: '/repo',
      });
      expect(put.status).toBe(200);
      const runId = await agentTurn(d, [write('src/a.ts')]);
      const [task] = await settledTasks(d, runId, 1);
      expect(task!.state).toBe('needs_approval');
    });

    it('an agent credential widens no overlay scope: it can neither write, nor trust, nor read one', async () => {
      d = await kernels.deploy(backend);
      const conversation = (await d.agent.post('/agent_api/v1/conversations')).body.id as string;
      const owners = { user: 'me', project: d.appId, conversation } as const;
      for (const [scope, owner] of Object.entries(owners)) {
        const path = `${d.ws}/overlays/${scope}/${owner}`;
        const before = await d.member.get(path);
        const put = await d.agent.put(path, {
          expected_digest: before.body.digest,
          groups: [{ ruleSetId: 'supervised', rules: [{ verdict: 'allow' }] }],
        });
        expect(put.status).toBe(403);
        expect(put.body.error.code).toBe('forbidden');
        expect((await d.agent.get(path)).status).toBe(403);
        expect((await d.member.get(path)).body.digest).toBe(before.body.digest);
      }
      const trust = await d.agent.post(`${d.ws}/overlays/project/${d.appId}/trust`, {
        digest: (await d.member.get(`${d.ws}/overlays/project/${d.appId}`)).body.digest,
      });
      expect(trust.status).toBe(403);
      expect((await d.member.get(`${d.ws}/overlays/project/${d.appId}`)).body.trusted_digest).toBe(
        null,
      );
    });
  });
}
