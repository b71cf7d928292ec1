import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAirlockError } from '../../errors.js';
import type { Principal } from '../../store/accounts.js';
import { addMember, type Deployment, deploy, waitFor } from '../../testing/harness.js';
import { backends } from '../../testing/stores.js';
import { approveTask } from './approvals.js';
import { denyTask } from './decisions.js';

const [sqlite] = await backends();

async function refusal(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (error) {
    return isAirlockError(error) ? { status: error.status, code: error.code } : error;
  }
  return null;
}

/*
 * A request is authenticated before it runs; an approve whose credential is revoked in
 * between (a revocation by another admin, through another kernel) is refused in its own unit
 * of work: no approval counted, no edit kept, no allow rule remembered for a revoked member.
 */
describe('an approve by a credential revoked after its request was authenticated', () => {
  let d: Deployment;
  let principal: Principal;
  beforeAll(async () => {
    d = await deploy(sqlite!);
    const member = await addMember(d, 'Revoked later');
    principal = {
      credential_id: member.id,
      kind: 'member',
      workspace_id: d.workspaceId,
      agent_application_id: null,
      role: 'approver',
    };
    const revoked = await d.member.post(`${d.ws}/credentials/${member.id}/revoke`, {});
    expect(revoked.status).toBe(200);
  });
  afterAll(async () => {
    await d?.close();
  });

  /** A run whose one call (deploy) the supervised rule set parks; answers its id. */
  async function parkedDeploy(): Promise<string> {
    const created = await d.agent.post(`${d.ws}/runs`, {
      approval_mode: 'bypass',
      permission_rule_set: 'supervised',
      input: 'go',
      provider: {
        kind: 'scripted',
        rounds: [{ tool_calls: [{ name: 'deploy', input: { n: 0 } }] }, { final: 'done' }],
      },
    });
    expect(created.status).toBe(201);
    const runId = created.body.id as string;
    await waitFor(
      async () =>
        (await d.member.get(`${d.ws}/runs/${runId}/tasks/t1`)).body.state === 'needs_approval',
      { timeoutMs: 60_000, what: 'the deploy to park' },
    );
    return runId;
  }

  const requests = {
    'a plain approve': {},
    'an approve with an edit': { toolInput: { n: 7 } },
    'an approve that remembers': { remember: { scope: 'user' as const } },
  };
  for (const [name, request] of Object.entries(requests)) {
    it(`refuses ${name} with approver_not_allowed and changes nothing`, async () => {
      const runId = await parkedDeploy();
      const task = `${d.ws}/runs/${runId}/tasks/t1`;
      const before = (await d.member.get(task)).body;
      const address = { workspaceId: d.workspaceId, runId, taskKey: 't1' };
      const approving = approveTask(d.airlock.kernel.context, principal, address, request);
      expect(await refusal(approving)).toEqual({ status: 403, code: 'approver_not_allowed' });
      const after = (await d.member.get(task)).body;
      expect(after.state).toBe('needs_approval');
      expect(after.version).toBe(before.version);
      expect(after.tool_input).toEqual({ n: 0 });
      const own = `${d.ws}/overlays/user/member:${principal.credential_id}`;
      expect((await d.member.get(own)).body.groups).toEqual([]);
    }, 120_000);
  }

  it('refuses a deny with approver_not_allowed and changes nothing', async () => {
    const runId = await parkedDeploy();
    const task = `${d.ws}/runs/${runId}/tasks/t1`;
    const before = (await d.member.get(task)).body;
    const address = { workspaceId: d.workspaceId, runId, taskKey: 't1' };
    const denying = denyTask(d.airlock.kernel.context, principal, address, 'no');
    expect(await refusal(denying)).toEqual({ status: 403, code: 'approver_not_allowed' });
    const after = (await d.member.get(task)).body;
    expect(after.state).toBe('needs_approval');
    expect(after.version).toBe(before.version);
  }, 120_000);
});
