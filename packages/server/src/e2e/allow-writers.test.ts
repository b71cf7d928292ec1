import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  type Deployment,
  leadsAndOutsider,
  type MemberOf,
  putOverlay,
  sharedKernels,
  waitFor,
} from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const all = await backends();

/*
 * An overlay's allow grants a call with no approval at all. While the approval policy asks more
 * of some call than one approval by any member, an approver's new allow (an overlay write or a
 * remember) would grant alone what the policy asks named members or several for: only an admin
 * writes one then. Deny and ask rules stay open to every member.
 */
for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`who writes an allow (${backend.name})`, () => {
    let d: Deployment;
    const kernels = sharedKernels();
    afterAll(() => kernels.close());
    afterEach(async () => {
      await d?.close();
    });

    const RM = { name: 'bash', input: { command: 'rm -rf build' } };
    const ALLOW_BASH = [
      { ruleSetId: 'supervised', rules: [{ verdict: 'allow', tools: ['bash'] }] },
    ];

    /** Two leads must approve destructive calls; Cy is an approver outside the group. */
    async function setUp(policy: 'leads' | 'none' = 'leads') {
      const { cy } = await leadsAndOutsider(
        d,
        policy === 'leads'
          ? { rules: [{ actions: ['destructive'], approvers: ['group:leads'], required: 2 }] }
          : undefined,
      );
      const profile = await d.agent.put('/agent_api/v1/profile/configuration', {
        approval_mode: 'bypass',
        permission_rule_set: 'supervised',
      });
      expect(profile.status).toBe(200);
      const conversation = (await d.agent.post('/agent_api/v1/conversations')).body.id as string;
      return { cy, conversation };
    }

    /** A turn of the conversation making one call; its row once the stage decided it. */
    async function turn(conversation: string, call: unknown) {
      const started = await d.agent.post(`/agent_api/v1/conversations/${conversation}/inputs`, {
        input: 'go',
        provider: { kind: 'scripted', rounds: [{ tool_calls: [call] }, { final: 'done' }] },
      });
      expect(started.status).toBe(201);
      const runId = started.body.id as string;
      const row = await waitFor(async () => {
        const task = (await d.member.get(`${d.ws}/runs/${runId}/tasks/t1`)).body;
        return task?.state && task.state !== 'ready' ? task : null;
      });
      return { runId, row };
    }

    const putOverlayAs = (who: MemberOf | null, path: string, groups: unknown) =>
      putOverlay(who ? who.client : d.member, path, groups);

    it("refuses an approver's conversation allow, changing nothing; the destructive call still waits for two leads", async () => {
      d = await kernels.deploy(backend);
      const { cy, conversation } = await setUp();
      const path = `${d.ws}/overlays/conversation/${conversation}`;
      const before = (await d.member.get(path)).body;
      const refused = await putOverlayAs(cy, path, ALLOW_BASH);
      expect([refused.status, refused.body.error?.code]).toEqual([403, 'admin_required']);
      expect(refused.body.error.detail).toContain('approval policy');
      expect((await d.member.get(path)).body).toEqual(before);
      const { row } = await turn(conversation, RM);
      expect(row.state).toBe('needs_approval');
      expect(row.approvals.required).toBe(2);
      // Tightening stays open to the approver; the admin, who sets the policy, may allow.
      const deny = [{ ruleSetId: 'supervised', rules: [{ verdict: 'deny', tools: ['curl'] }] }];
      expect((await putOverlayAs(cy, path, deny)).status).toBe(200);
      expect((await putOverlayAs(null, path, [...deny, ...ALLOW_BASH])).status).toBe(200);
      // Keeping the admin's allow while adding a deny is no new allow.
      const more = [
        { ruleSetId: 'supervised', rules: [{ verdict: 'deny', tools: ['curl', 'wget'] }] },
        ...ALLOW_BASH,
      ];
      expect((await putOverlayAs(cy, path, more)).status).toBe(200);
    });

    it("refuses an approver's user-scope allow under the policy, and takes it without one", async () => {
      d = await kernels.deploy(backend);
      const { cy } = await setUp();
      const path = `${d.ws}/overlays/user/me`;
      const refused = await putOverlayAs(cy, path, ALLOW_BASH);
      expect([refused.status, refused.body.error?.code]).toEqual([403, 'admin_required']);
      await d.close();
      d = await kernels.deploy(backend);
      const open = await setUp('none');
      const taken = await putOverlayAs(open.cy, `${d.ws}/overlays/user/me`, ALLOW_BASH);
      expect(taken.status).toBe(200);
    });

    it('refuses an approve with remember by an approver, approving nothing; the next turn still parks', async () => {
      d = await kernels.deploy(backend);
      const { cy, conversation } = await setUp();
      const { runId, row } = await turn(conversation, { name: 'ls', input: {} });
      expect(row).toMatchObject({ state: 'needs_approval', approvals: { required: 1 } });
      const task = `${d.ws}/runs/${runId}/tasks/t1`;
      const refused = await cy.client.post(`${task}/approve`, {
        remember: { scope: 'conversation', rule: { tools: ['*'] } },
      });
      expect([refused.status, refused.body.error?.code]).toEqual([403, 'admin_required']);
      expect((await d.member.get(task)).body.state).toBe('needs_approval');
      const overlay = await d.member.get(`${d.ws}/overlays/conversation/${conversation}`);
      expect(overlay.body.groups).toEqual([]);
      expect((await cy.client.post(`${task}/approve`, {})).body.state).toBe('runnable');
    });
  });
}
