import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type Deployment, sharedKernels } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const all = await backends();
const PROFILE = '/agent_api/v1/profile/configuration';

// biome-ignore lint/suspicious/noExplicitAny: tests read JSON lines loosely and assert on them.
type Loose = any;

/** The workspace's audit trail's changes of policy, in order. */
async function policyChanges(d: Deployment): Promise<Loose[]> {
  const response = await fetch(`${d.url}${d.ws}/audit`, {
    headers: { authorization: `Bearer ${d.tokens.member}` },
  });
  expect(response.status).toBe(200);
  return (await response.text())
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line))
    .filter((record) => record.event === 'policy.changed');
}

/*
 * Who may act in a workspace is policy: a member credential approves, an executor runs what is
 * granted. Every change of it is on the audit trail with who made it, and so is a contract's removal.
 */
for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`account changes on the record (${backend.name})`, () => {
    let d: Deployment;
    const kernels = sharedKernels();
    afterAll(() => kernels.close());
    afterEach(async () => {
      await d?.close();
    });

    it('records credentials made, relabelled and revoked, and applications made and removed, by whom', async () => {
      d = await kernels.deploy(backend);
      const member = (await d.member.get(`${d.ws}/credentials/self`)).body.principal as string;
      const made = await d.member.post(`${d.ws}/credentials`, {
        kind: 'member',
        agent_application_id: null,
        label: 'Carl-x',
      });
      const id = made.body.credential_id as string;
      await d.member.post(`${d.ws}/credentials/${id}/label`, { label: 'Carl' });
      await d.member.post(`${d.ws}/credentials/${id}/revoke`);
      const app = (await d.member.post(`${d.ws}/agent_applications`, { name: 'deployer' })).body
        .id as string;
      expect((await d.member.post(`${d.ws}/agent_applications/${app}/remove`)).status).toBe(202);
      const changes = await policyChanges(d);
      expect(
        changes.map((record) => [record.decision, record.principal, record.policy.owner_id]),
      ).toEqual([
        ['credential_created', member, id],
        ['credential_relabelled', member, id],
        ['credential_revoked', member, id],
        ['agent_application_created', member, app],
        ['agent_application_removed', member, app],
      ]);
      expect(changes[0].policy).toMatchObject({
        scope: 'credential',
        before: null,
        after: { kind: 'member', agent_application_id: null, label: 'Carl-x' },
      });
      expect(changes[1].policy).toMatchObject({
        before: { label: 'Carl-x' },
        after: { label: 'Carl' },
      });
      expect(changes[1].detail).toBe(`relabelled member credential ${id} from "Carl-x" to "Carl"`);
      // A revocation says what was revoked (its role above all), not only its id.
      expect(changes[2].policy).toMatchObject({
        scope: 'credential',
        before: { kind: 'member', agent_application_id: null, role: 'approver', label: 'Carl' },
      });
      expect(changes[2].policy).not.toHaveProperty('after');
      expect(changes[2].detail).toBe(`revoked approver member credential ${id} (Carl)`);
      expect(JSON.stringify(changes)).not.toContain(made.body.token);
      // A refused change is no change: nothing more is recorded.
      expect((await d.member.post(`${d.ws}/credentials/${id}/revoke`)).status).toBe(404);
      expect(await policyChanges(d)).toHaveLength(5);
    });

    it('records the removal of an action contract, which lifts its rules', async () => {
      d = await kernels.deploy(backend);
      const contract = {
        contract_version: 2,
        authorization: { forbidden: ['action:destructive'] },
      };
      expect(
        (await d.agent.put(PROFILE, { approval_mode: 'ask', action_contract: contract })).status,
      ).toBe(200);
      expect((await d.agent.put(PROFILE, { approval_mode: 'ask' })).status).toBe(200);
      const changes = (await policyChanges(d)).map((record) => [
        record.decision,
        record.policy.contract_version ?? null,
        record.policy.after_digest === null,
      ]);
      expect(changes).toEqual([
        ['profile_declared', null, false],
        ['contract_published', 2, false],
        ['profile_declared', null, false],
        ['contract_removed', 2, true],
      ]);
    });
  });
}
