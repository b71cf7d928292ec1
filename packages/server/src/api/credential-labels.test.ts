import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, type Deployment, deploy } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const all = await backends();

// biome-ignore lint/suspicious/noExplicitAny: tests read JSON answers loosely and assert on them.
type Loose = any;

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`a credential's label (${backend.name})`, () => {
    let d: Deployment;
    let alice: string;
    let bob: string;
    beforeAll(async () => {
      d = await deploy(backend);
      alice = (await addMember(d, 'Alice')).id;
      bob = (await addMember(d, 'Bob')).id;
    }, 60_000);
    afterAll(async () => {
      await d?.close();
    });

    /** The workspace's audit lines, counted: a refused request records nothing. */
    async function trailLength(): Promise<number> {
      const response = await fetch(`${d.url}${d.ws}/audit`, {
        headers: { authorization: `Bearer ${d.tokens.member}` },
      });
      return (await response.text()).split('\n').filter(Boolean).length;
    }

    async function labels(): Promise<Map<string, string>> {
      const listed = await d.member.get(`${d.ws}/credentials`);
      return new Map(listed.body.credentials.map((c: Loose) => [c.credential_id, c.label]));
    }

    it('refuses a new credential named as another active one, whatever the case, width or invisible characters', async () => {
      const before = await trailLength();
      for (const label of [
        'Alice',
        'alice',
        ' ALICE ',
        'Ａｌｉｃｅ',
        'Al\u200bice',
        'Alice\u202e',
      ]) {
        for (const kind of ['member', 'agent'] as const) {
          const made = await d.member.post(`${d.ws}/credentials`, {
            kind,
            ...(kind === 'member' ? { agent_application_id: null } : {}),
            label,
          });
          expect(made.status, `${kind} ${JSON.stringify(label)}`).toBe(409);
          expect(made.body.error.code).toBe('label_taken');
          expect(made.body.error.detail).toContain(alice);
        }
      }
      expect(await trailLength()).toBe(before);
      expect([...(await labels()).values()].filter((label) => label === 'Alice')).toHaveLength(1);
    });

    it("refuses relabelling a credential as another's name, and changes nothing", async () => {
      const before = await trailLength();
      const relabel = await d.member.post(`${d.ws}/credentials/${bob}/label`, { label: 'ALICE' });
      expect(relabel.status).toBe(409);
      expect(relabel.body.error.code).toBe('label_taken');
      expect((await labels()).get(bob)).toBe('Bob');
      expect(await trailLength()).toBe(before);
    });

    it('lets a credential keep its own name in another case, and kinds keep their default labels', async () => {
      const own = await d.member.post(`${d.ws}/credentials/${alice}/label`, { label: 'ALICE' });
      expect(own.status).toBe(200);
      expect(own.body.label).toBe('ALICE');
      // A default label (the kind) names nobody: any number of credentials may keep it.
      for (let i = 0; i < 2; i += 1) {
        const made = await d.member.post(`${d.ws}/credentials`, { kind: 'executor' });
        expect(made.status).toBe(201);
      }
    });

    it('refuses a label with no visible character as invalid_input', async () => {
      for (const label of ['\u200b', ' \u200b\u2060 ']) {
        const made = await d.member.post(`${d.ws}/credentials`, { kind: 'executor', label });
        expect(made.status, JSON.stringify(label)).toBe(400);
        expect(made.body.error.code).toBe('invalid_input');
      }
    });

    it("refuses a label that spells another credential's id or principal, revoked ones too", async () => {
      const listed = await d.member.get(`${d.ws}/credentials?include_revoked=true`);
      const unnamed = listed.body.credentials.find((c: Loose) => c.label === c.kind);
      for (const label of [
        unnamed.credential_id,
        `${unnamed.kind}:${unnamed.credential_id}`,
        `member:${bob}`.toUpperCase(),
      ]) {
        const made = await d.member.post(`${d.ws}/credentials`, { kind: 'executor', label });
        expect(made.status, label).toBe(409);
        expect(made.body.error.code).toBe('label_taken');
      }
      const revoked = await addMember(d, 'Gone');
      expect((await d.member.post(`${d.ws}/credentials/${revoked.id}/revoke`)).status).toBe(200);
      const relabel = await d.member.post(`${d.ws}/credentials/${bob}/label`, {
        label: `member:${revoked.id}`,
      });
      expect(relabel.status).toBe(409);
      expect(relabel.body.error.code).toBe('label_taken');
    });

    it("frees a revoked credential's name", async () => {
      const carol = await addMember(d, 'Carol');
      expect((await d.member.post(`${d.ws}/credentials/${carol.id}/revoke`)).status).toBe(200);
      const again = await d.member.post(`${d.ws}/credentials`, {
        kind: 'member',
        agent_application_id: null,
        label: 'carol',
      });
      expect(again.status).toBe(201);
    });
  });
}
