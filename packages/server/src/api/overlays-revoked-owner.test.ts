import { afterEach, describe, expect, it } from 'vitest';
import { addMember, type Deployment, deploy, putOverlay, waitFor } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

/**
 * A revoked admin's guardrails keep binding the workspace (revoking a person
 * must not silently lift what they forbade), and nobody could lift them: only
 * a document's owner managed it. Another admin may now read such a document
 * and remove rules from it, on the audit trail; it may not add any, and an
 * active member's document stays its owner's alone.
 */

const NO_RM = {
  ruleSetId: 'supervised',
  rules: [
    {
      verdict: 'deny',
      guardrail: true,
      tools: ['bash'],
      argument_patterns: { '/command': '*rm -rf*' },
      reason: 'no recursive deletes',
    },
  ],
};

// biome-ignore lint/suspicious/noExplicitAny: tests read JSON loosely and assert on it.
type Loose = any;

async function rmRun(d: Deployment): Promise<Loose> {
  const created = await d.member.post(`${d.ws}/runs`, {
    approval_mode: 'bypass',
    input: 'x',
    provider: {
      kind: 'scripted',
      rounds: [{ tool_calls: [{ name: 'bash', input: { command: 'rm -rf ./build' } }] }],
    },
  });
  expect(created.status).toBe(201);
  return waitFor(async () => {
    const [task] = (await d.member.get(`${d.ws}/runs/${created.body.id}/tasks`)).body.tasks;
    return task && task.state !== 'ready' ? (task as Loose) : null;
  });
}

async function auditPolicy(d: Deployment): Promise<Loose[]> {
  const response = await fetch(`${d.url}${d.ws}/audit`, {
    headers: { authorization: `Bearer ${d.tokens.member}` },
  });
  expect(response.status).toBe(200);
  return (await response.text())
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Loose)
    .filter((record) => record.event === 'policy.changed');
}

for (const backend of await backends()) {
  describe.skipIf(backend.skip !== null)(`a revoked admin's guardrails (${backend.name})`, () => {
    let d: Deployment | undefined;
    afterEach(async () => {
      await d?.close();
      d = undefined;
    });

    it('another admin lifts them, on the record; the revocation alone lifts nothing', async () => {
      d = await deploy(backend);
      const gone = await addMember(d, 'gone', 'admin');
      const own = await putOverlay(gone.client, `${d.ws}/overlays/user/me`, [NO_RM]);
      expect(own.status).toBe(200);
      const revoked = await d.member.post(`${d.ws}/credentials/${gone.id}/revoke`);
      expect(revoked.status).toBe(200);
      expect((await rmRun(d)).error?.detail).toBe('no recursive deletes');

      const path = `${d.ws}/overlays/user/member:${gone.id}`;
      const read = await d.member.get(path);
      expect(read.status).toBe(200);
      expect(read.body.groups).toEqual([NO_RM]);
      const lifted = await d.member.put(path, { expected_digest: read.body.digest, groups: [] });
      expect(lifted.status).toBe(200);
      expect((await rmRun(d)).state).toBe('runnable');

      const last = (await auditPolicy(d)).at(-1);
      expect(last).toMatchObject({
        decision: 'overlay_replaced',
        policy: { scope: 'user', owner_id: `member:${gone.id}`, before_digest: read.body.digest },
      });
      expect(last?.principal).toMatch(/^member:cred_/);
      expect(last?.principal).not.toBe(`member:${gone.id}`);
    });

    it('adds nothing to it, and leaves an active member or an approver no way in', async () => {
      d = await deploy(backend);
      const gone = await addMember(d, 'gone', 'admin');
      const active = await addMember(d, 'active', 'admin');
      const approver = await addMember(d, 'approver');
      for (const member of [gone, active]) {
        const own = await putOverlay(member.client, `${d.ws}/overlays/user/me`, [NO_RM]);
        expect(own.status).toBe(200);
      }
      expect((await d.member.post(`${d.ws}/credentials/${gone.id}/revoke`)).status).toBe(200);
      const path = `${d.ws}/overlays/user/member:${gone.id}`;
      const read = await d.member.get(path);
      const widened = {
        ...NO_RM,
        rules: [...NO_RM.rules, { verdict: 'deny', guardrail: true, tools: ['curl'] }],
      };
      const added = await d.member.put(path, {
        expected_digest: read.body.digest,
        groups: [widened],
      });
      expect(added.status).toBe(403);
      expect(added.body.error.code).toBe('forbidden');
      const byApprover = await approver.client.put(path, {
        expected_digest: read.body.digest,
        groups: [],
      });
      expect(byApprover.status).toBe(403);
      expect((await approver.client.get(path)).status).toBe(403);
      const activePath = `${d.ws}/overlays/user/member:${active.id}`;
      expect((await d.member.get(activePath)).status).toBe(403);
      expect((await d.member.get(`${d.ws}/overlays/user/member:cred_nosuch`)).status).toBe(403);
      expect((await d.member.get(path)).body.digest).toBe(read.body.digest);
    });
  });
}
