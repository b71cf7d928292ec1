import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, type Deployment, deploy } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const all = await backends();

/*
 * A rule whose quorum nobody could ever give (it names fewer distinct members than it requires,
 * or nobody) is refused at put. A rule naming nobody asks every live member, and the workspace
 * may have fewer than it requires: that put is accepted (members may be added after it, as a
 * revoke is never refused), and its answer names the rule, as a revoke's answer does.
 */
for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `an approval policy put's unreachable rules (${backend.name})`,
    () => {
      let d: Deployment;
      beforeAll(async () => {
        d = await deploy(backend);
      });
      afterAll(async () => {
        await d?.close();
      });

      const put = (policy: unknown) => d.member.put(`${d.ws}/approval_policy`, { policy });

      it('names a rule asking more approvals than the workspace has live members', async () => {
        // The deployment's admin and Ana: two live members.
        const ana = await addMember(d, 'Ana');
        const three = {
          rules: [
            { tool: 'deploy', approvers: [ana.id] },
            { actions: ['destructive'], required: 3 },
          ],
        };
        const accepted = await put(three);
        expect(accepted.status).toBe(200);
        expect(accepted.body.unreachable_approval_rules).toEqual([
          { rule_index: 1, required: 3, approvers_left: 2 },
        ]);
        expect((await d.member.get(`${d.ws}/approval_policy`)).body.policy).toEqual(three);

        const bo = await addMember(d, 'Bo');
        const again = await put(three);
        expect(again.status).toBe(200);
        expect(again.body.unreachable_approval_rules).toEqual([]);
        // A revoked member counts no more.
        expect((await d.member.post(`${d.ws}/credentials/${bo.id}/revoke`, {})).status).toBe(200);
        expect((await put(three)).body.unreachable_approval_rules).toEqual([
          { rule_index: 1, required: 3, approvers_left: 2 },
        ]);
      }, 120_000);

      it('refuses a rule naming nobody, or fewer members than it requires', async () => {
        const cy = await addMember(d, 'Cy');
        const before = (await d.member.get(`${d.ws}/approval_policy`)).body.version as number;
        const nobody = await put({ rules: [{ tool: 'deploy', approvers: [] }] });
        expect(nobody.status).toBe(422);
        expect(nobody.body.error.problems).toMatchObject([
          { code: 'approval_rule_invalid', pointer: '/policy/rules/0/approvers' },
        ]);
        const short = await put({
          groups: { ops: [cy.id, cy.id] },
          rules: [{ tool: 'deploy', approvers: ['group:ops'], required: 2 }],
        });
        expect(short.status).toBe(422);
        expect(short.body.error.problems).toMatchObject([
          { code: 'approval_quorum_unreachable', pointer: '/policy/rules/0/required' },
        ]);
        expect((await d.member.get(`${d.ws}/approval_policy`)).body.version).toBe(before);
      }, 120_000);
    },
  );
}
