import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, type Deployment, deploy } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const all = await backends();

/*
 * A policy naming a member, put while that member is revoked: either the put reads the member
 * revoked and is refused (approval_approver_revoked), or the revoke reads the new policy and
 * names the rule it leaves unreachable. Never a policy that counts on a revoked member with
 * nobody told.
 */
for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `an approval policy put while its approver is revoked (${backend.name})`,
    () => {
      let d: Deployment;
      beforeAll(async () => {
        d = await deploy(backend);
      });
      afterAll(async () => {
        await d?.close();
      });

      it('is refused, or the revoke names the rule it leaves unreachable', async () => {
        const keeper = await addMember(d, 'Keeper');
        for (let round = 0; round < 40; round++) {
          const leaving = await addMember(d, `Leaving ${round}`);
          const [put, revoked] = await Promise.all([
            d.member.put(`${d.ws}/approval_policy`, {
              policy: { rules: [{ approvers: [leaving.id, keeper.id], required: 2 }] },
            }),
            d.member.post(`${d.ws}/credentials/${leaving.id}/revoke`, {}),
          ]);
          expect(revoked.status).toBe(200);
          const warned = revoked.body.unreachable_approval_rules.length > 0;
          if (put.status === 200) {
            expect({ round, warned }).toEqual({ round, warned: true });
          } else {
            expect(put.status).toBe(422);
            const codes = put.body.error.problems.map((p: { code: string }) => p.code);
            expect(codes).toEqual(['approval_approver_revoked']);
          }
          // Mend the policy for the next round (its approvers are live again).
          const mended = await d.member.put(`${d.ws}/approval_policy`, { policy: {} });
          expect(mended.status).toBe(200);
        }
      }, 300_000);
    },
  );
}
