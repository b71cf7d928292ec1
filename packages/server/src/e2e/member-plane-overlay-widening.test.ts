import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  type Deployment,
  leadsAndOutsider,
  putOverlay,
  sharedKernels,
  waitFor,
} from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const all = await backends();

/*
 * Lifting a deny or ask widens as an allow does: an admin's "allow bash" beside "deny rm" grants
 * rm once the deny is gone. While the approval policy asks more of some call than one approval
 * by any member, only an admin lifts one, as only an admin writes a new allow.
 */
const EXCEPT_RM = [
  {
    ruleSetId: 'supervised',
    rules: [
      {
        verdict: 'deny',
        tools: ['bash'],
        argument_patterns: { '/command': '*rm *' },
        reason: 'no rm',
      },
      { verdict: 'allow', tools: ['bash'] },
    ],
  },
];
const BASH_ONLY = [{ ruleSetId: 'supervised', rules: [{ verdict: 'allow', tools: ['bash'] }] }];
const RM = { name: 'bash', input: { command: 'rm -rf build' } };

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`who lifts a deny or ask (${backend.name})`, () => {
    let d: Deployment;
    const kernels = sharedKernels();
    afterAll(() => kernels.close());
    afterEach(async () => {
      await d?.close();
    });

    async function setUp(policy: Record<string, unknown> | undefined) {
      const { cy } = await leadsAndOutsider(d, policy);
      const profile = await d.agent.put('/agent_api/v1/profile/configuration', {
        approval_mode: 'bypass',
        permission_rule_set: 'supervised',
      });
      expect(profile.status).toBe(200);
      const conversation = (await d.agent.post('/agent_api/v1/conversations')).body.id as string;
      const path = `${d.ws}/overlays/conversation/${conversation}`;
      expect((await putOverlay(d.member, path, EXCEPT_RM)).status).toBe(200);
      return { cy, conversation, path };
    }

    it("refuses an approver's dropping of an admin's deny beside an allow, changing nothing; rm is still refused", async () => {
      d = await kernels.deploy(backend);
      const { cy, conversation, path } = await setUp({
        rules: [{ actions: ['destructive'], approvers: ['group:leads'], required: 2 }],
      });
      const before = (await d.member.get(path)).body;
      const refused = await putOverlay(cy.client, path, BASH_ONLY);
      expect([refused.status, refused.body.error?.code]).toEqual([403, 'admin_required']);
      expect(refused.body.error.detail).toContain('deny or ask rule');
      expect((await d.member.get(path)).body).toEqual(before);
      // Narrowing the deny is lifting it too.
      const narrowed = structuredClone(EXCEPT_RM);
      narrowed[0]!.rules[0]!.argument_patterns = { '/command': 'rm -rf /' };
      expect((await putOverlay(cy.client, path, narrowed)).status).toBe(403);
      // So is putting the allow ahead of it: the first matching rule decides.
      const reordered = [{ ruleSetId: 'supervised', rules: [...EXCEPT_RM[0]!.rules].reverse() }];
      expect((await putOverlay(cy.client, path, reordered)).status).toBe(403);
      // Widening the deny, or adding another, stays open to the approver.
      const wider = structuredClone(EXCEPT_RM);
      wider[0]!.rules.unshift({ verdict: 'ask', tools: ['curl'] } as never);
      wider[0]!.rules[1]!.argument_patterns = undefined;
      const taken = await putOverlay(cy.client, path, wider);
      expect(taken.status).toBe(200);
      expect((await putOverlay(d.member, path, EXCEPT_RM)).status).toBe(200);
      const started = await d.agent.post(`/agent_api/v1/conversations/${conversation}/inputs`, {
        input: 'go',
        provider: { kind: 'scripted', rounds: [{ tool_calls: [RM] }, { final: 'done' }] },
      });
      const row = await waitFor(async () => {
        const task = (await d.member.get(`${d.ws}/runs/${started.body.id}/tasks/t1`)).body;
        return task?.state && task.state !== 'ready' ? task : null;
      });
      expect(row.state).toBe('failed');
      expect(row.error.code).toBe('approval_denied');
      // The admin, who sets the policy, may lift it.
      expect((await putOverlay(d.member, path, BASH_ONLY)).status).toBe(200);
    });

    it('lets an approver lift a deny while the policy asks no more than one approval by any member', async () => {
      d = await kernels.deploy(backend);
      const { cy, path } = await setUp(undefined);
      const lifted = await putOverlay(cy.client, path, BASH_ONLY);
      expect(lifted.status).toBe(200);
      expect(lifted.body.groups).toEqual(BASH_ONLY);
    });
  });
}
