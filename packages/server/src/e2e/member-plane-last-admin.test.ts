import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { addMember, type Deployment, sharedKernels } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const all = await backends();

// biome-ignore lint/suspicious/noExplicitAny: tests read JSON lines loosely and assert on them.
type Loose = any;

async function revocations(d: Deployment): Promise<Loose[]> {
  const response = await fetch(`${d.url}${d.ws}/audit`, {
    headers: { authorization: `Bearer ${d.tokens.member}` },
  });
  return (await response.text())
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line))
    .filter((record) => record.decision === 'credential_revoked');
}

/*
 * Only an admin makes credentials and sets policy through the API, so the member plane keeps
 * one: revoking the workspace's last active admin would leave no one able to govern it again.
 */
for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`the last admin (${backend.name})`, () => {
    let d: Deployment;
    const kernels = sharedKernels();
    afterAll(() => kernels.close());
    afterEach(async () => {
      await d?.close();
    });

    it('refuses to revoke the last active admin with 409 last_admin, changing and recording nothing', async () => {
      d = await kernels.deploy(backend);
      const self = (await d.member.get(`${d.ws}/credentials/self`)).body.credential_id as string;
      // An approver does not govern: it leaves the admin the last one.
      await addMember(d, 'Ana');
      const refused = await d.member.post(`${d.ws}/credentials/${self}/revoke`);
      expect(refused.status).toBe(409);
      expect(refused.body.error.code).toBe('last_admin');
      expect(refused.body.error.detail).toContain(self);
      expect((await d.member.get(`${d.ws}/credentials/self`)).status).toBe(200);
      expect(await revocations(d)).toEqual([]);
    });

    it('revokes an admin while another stays, and then refuses the one left', async () => {
      d = await kernels.deploy(backend);
      const self = (await d.member.get(`${d.ws}/credentials/self`)).body.credential_id as string;
      const bo = await addMember(d, 'Bo', 'admin');
      expect((await bo.client.post(`${d.ws}/credentials/${self}/revoke`)).status).toBe(200);
      const last = await bo.client.post(`${d.ws}/credentials/${bo.id}/revoke`);
      expect(last.status).toBe(409);
      expect(last.body.error.code).toBe('last_admin');
      expect((await bo.client.get(`${d.ws}/credentials/self`)).body.role).toBe('admin');
    });

    it('lets exactly one of two admins revoking each other at once win', async () => {
      d = await kernels.deploy(backend);
      const self = (await d.member.get(`${d.ws}/credentials/self`)).body.credential_id as string;
      const bo = await addMember(d, 'Bo', 'admin');
      const answers = await Promise.all([
        d.member.post(`${d.ws}/credentials/${bo.id}/revoke`),
        bo.client.post(`${d.ws}/credentials/${self}/revoke`),
      ]);
      const statuses = answers.map((answer) => answer.status).sort();
      // The loser is refused as the last admin, or its token was revoked before it was read.
      expect(statuses[0]).toBe(200);
      expect([401, 409]).toContain(statuses[1]);
      const listed = (
        await (answers[0].status === 200 ? d.member : bo.client).get(`${d.ws}/credentials`)
      ).body.credentials as Loose[];
      expect(listed.filter((c) => c.role === 'admin')).toHaveLength(1);
    });
  });
}
