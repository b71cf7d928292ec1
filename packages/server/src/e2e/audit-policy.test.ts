import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { CLI_NODE_ARGS } from '../testing/cli-entry.js';
import { type Deployment, sharedKernels, waitFor } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const sqlite = (await backends()).filter((backend) => backend.name === 'sqlite');
const execute = promisify(execFile);
const PROFILE = '/agent_api/v1/profile/configuration';

// biome-ignore lint/suspicious/noExplicitAny: tests read JSON lines loosely and assert on them.
type Loose = any;

async function auditLines(d: Deployment, path: string): Promise<Loose[]> {
  const response = await fetch(`${d.url}${path}`, {
    headers: { authorization: `Bearer ${d.tokens.member}` },
  });
  expect(response.status).toBe(200);
  return (await response.text())
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

async function parkedTurn(d: Deployment, conversation: string, calls: unknown[]) {
  const started = await d.agent.post(`/agent_api/v1/conversations/${conversation}/inputs`, {
    input: 'go',
    provider: { kind: 'scripted', rounds: [{ tool_calls: calls }, { final: 'done' }] },
  });
  const runId = started.body.id as string;
  await waitFor(async () => {
    const tasks = (await d.member.get(`${d.ws}/runs/${runId}/tasks`)).body.tasks;
    return tasks.length === calls.length && tasks.every((t: Loose) => t.state !== 'ready');
  });
  return runId;
}

for (const backend of sqlite) {
  describe.skipIf(backend.skip !== null)(
    `changes of policy on the record (${backend.name})`,
    () => {
      let d: Deployment;
      const kernels = sharedKernels();
      afterAll(() => kernels.close());
      afterEach(async () => {
        await d?.close();
      });

      it('profile, contract, overlay replace and trust, and remember are audit records, exported by the CLI', async () => {
        d = await kernels.deploy(backend);
        const agent = (await d.agent.get(`${d.ws}/credentials/self`)).body.principal;
        const member = (await d.member.get(`${d.ws}/credentials/self`)).body.principal;
        expect(
          (
            await d.agent.put(PROFILE, {
              approval_mode: 'bypass',
              permission_rule_set: 'supervised',
            })
          ).status,
        ).toBe(200);
        expect(
          (
            await d.agent.put(PROFILE, {
              approval_mode: 'bypass',
              permission_rule_set: 'supervised',
              action_contract: {
                contract_version: 3,
                authorization: { requires_user: ['action:delete'] },
              },
            })
          ).status,
        ).toBe(200);
        const project = `${d.ws}/overlays/project/${d.appId}`;
        const empty = (await d.member.get(project)).body.digest;
        const replaced = await d.member.put(project, {
          expected_digest: empty,
          groups: [{ ruleSetId: 'supervised', rules: [{ verdict: 'ask', tools: ['deploy'] }] }],
        });
        expect(replaced.status).toBe(200);
        expect(
          (await d.member.post(`${project}/trust`, { digest: replaced.body.digest })).status,
        ).toBe(200);
        const conversation = (await d.agent.post('/agent_api/v1/conversations')).body.id;
        const runId = await parkedTurn(d, conversation, [{ name: 'lookup', input: { q: 1 } }]);
        const approved = await d.member.post(`${d.ws}/runs/${runId}/tasks/t1/approve`, {
          remember: { scope: 'conversation' },
        });
        expect(approved.status).toBe(200);

        const records = await auditLines(d, `${d.ws}/audit`);
        const policy = records.filter((r) => r.event === 'policy.changed');
        expect(policy.map((r) => r.decision)).toEqual([
          'profile_declared',
          'profile_declared',
          'contract_published',
          'overlay_replaced',
          'overlay_trusted',
          'rule_remembered',
        ]);
        const [first, second, contract, replace, trust, remember] = policy;
        expect(first).toMatchObject({
          principal: agent,
          decider: 'person',
          run_id: '',
          policy: { scope: 'profile', owner_id: d.appId, before_digest: null },
        });
        expect(second.policy.before_digest).toBe(first.policy.after_digest);
        expect(second.policy.after_digest).not.toBe(first.policy.after_digest);
        expect(contract.policy).toMatchObject({
          change: 'contract_published',
          contract_version: 3,
        });
        expect(replace).toMatchObject({
          principal: member,
          policy: {
            scope: 'project',
            owner_id: d.appId,
            before_digest: empty,
            after_digest: replaced.body.digest,
          },
        });
        expect(trust.policy).toMatchObject({
          before_digest: null,
          after_digest: replaced.body.digest,
        });
        expect(remember).toMatchObject({
          principal: member,
          run_id: runId,
          task_key: 't1',
          policy: {
            scope: 'conversation',
            owner_id: conversation,
            after_digest: approved.body.remembered?.digest ?? expect.any(String),
            rule: {
              rule_set: 'supervised',
              verdict: 'allow',
              tool_names: ['lookup'],
              arguments: { '': { q: 1 } },
            },
          },
        });
        // The run's own audit has its remember; the CLI export has every record.
        const ofRun = await auditLines(d, `${d.ws}/runs/${runId}/audit`);
        expect(ofRun.filter((r) => r.event === 'policy.changed')).toEqual([remember]);
        const { stdout } = await execute(process.execPath, [...CLI_NODE_ARGS, 'audit', 'export'], {
          env: {
            ...process.env,
            AIRLOCK_URL: d.url,
            AIRLOCK_TOKEN: d.tokens.member,
            AIRLOCK_WORKSPACE: d.workspaceId,
          },
        });
        const exported = stdout
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line));
        expect(exported).toEqual(records);
      });

      it("a contract park's audit line names the list, the contract version and what the person read", async () => {
        d = await kernels.deploy(backend);
        const created = await d.agent.post(`${d.ws}/runs`, {
          approval_mode: 'bypass',
          input: 'x',
          action_contract: {
            contract_version: 4,
            authorization: { requires_user: ['action:delete'] },
          },
          provider: {
            kind: 'scripted',
            rounds: [
              { tool_calls: [{ name: 'bash', input: { command: 'rm notes.txt' } }] },
              { final: 'x' },
            ],
          },
        });
        expect(created.status).toBe(201);
        const runId = created.body.id;
        await waitFor(async () => {
          const tasks = (await d.member.get(`${d.ws}/runs/${runId}/tasks`)).body.tasks;
          return tasks[0]?.state === 'needs_approval';
        });
        const parked = (await auditLines(d, `${d.ws}/runs/${runId}/audit`)).find(
          (r) => r.decision === 'parked',
        );
        expect(parked.layer).toBe('action_contract');
        expect(parked.layers).toContainEqual(
          expect.objectContaining({
            layer: 'action_contract',
            verdict: 'ask',
            rule_index: 0,
            list: 'requires_user',
            contract_version: 4,
          }),
        );
        expect(parked.detail).toMatch(/action contract v4 requires a person's answer/);
      });
    },
  );
}
