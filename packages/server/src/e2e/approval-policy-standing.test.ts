import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  addMember,
  type Client,
  type Deployment,
  type MemberOf,
  sharedKernels,
  waitFor,
} from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const all = await backends();

/*
 * The policy is read when a person decides, so an approval given earlier counts only while it
 * stands: not once its credential is revoked, nor once the policy no longer lets its member
 * approve the call. What a policy names must be able to approve at all.
 */
for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`approvals that stand (${backend.name})`, () => {
    let d: Deployment;
    const kernels = sharedKernels();
    afterAll(() => kernels.close());
    afterEach(async () => {
      await d?.close();
    });

    const member = (label: string): Promise<MemberOf> => addMember(d, label);
    const setPolicy = async (policy: unknown) =>
      d.member.put(`${d.ws}/approval_policy`, { policy });
    async function parkedRun(by: Client = d.agent): Promise<string> {
      const created = await by.post(`${d.ws}/runs`, {
        approval_mode: 'ask',
        input: 'clean up',
        provider: {
          kind: 'scripted',
          rounds: [
            { tool_calls: [{ name: 'bash', input: { command: 'rm -rf build' } }] },
            { final: 'done' },
          ],
        },
      });
      expect(created.status).toBe(201);
      const runId = created.body.id as string;
      await waitFor(async () => (await d.member.get(task(runId))).body.state === 'needs_approval');
      return runId;
    }
    const task = (runId: string) => `${d.ws}/runs/${runId}/tasks/t1`;
    const approve = async (who: MemberOf, runId: string) => {
      const answer = await who.client.post(`${task(runId)}/approve`, {});
      expect(answer.status).toBe(200);
      return answer.body as { state: string; approvals: { received: { principal: string }[] } };
    };
    const received = async (runId: string) =>
      ((await d.member.get(task(runId))).body.approvals.received as { principal: string }[]).map(
        (approval) => approval.principal,
      );

    it('an approval by a credential revoked since no longer counts toward the quorum', async () => {
      d = await kernels.deploy(backend);
      const [ana, bo, temp] = [await member('Ana'), await member('Bo'), await member('Temp')];
      expect(
        (
          await setPolicy({
            rules: [{ actions: ['destructive'], approvers: [ana.id, bo.id, temp.id], required: 2 }],
          })
        ).status,
      ).toBe(200);
      const runId = await parkedRun();
      expect((await approve(temp, runId)).state).toBe('needs_approval');
      expect((await d.member.post(`${d.ws}/credentials/${temp.id}/revoke`)).status).toBe(200);
      expect(await received(runId)).toEqual([]);
      const second = await approve(ana, runId);
      expect(second.state).toBe('needs_approval');
      expect(second.approvals.received.map((a) => a.principal)).toEqual([`member:${ana.id}`]);
      expect((await approve(bo, runId)).state).toBe('runnable');
    });

    it('an approval by a member the policy no longer names, or by the starter once self-approval is off, no longer counts', async () => {
      d = await kernels.deploy(backend);
      const [ana, bo, cy] = [await member('Ana'), await member('Bo'), await member('Cy')];
      const rule = (approvers: string[]) => ({ actions: ['destructive'], approvers, required: 2 });
      await setPolicy({
        groups: { leads: [ana.id, bo.id, cy.id] },
        rules: [rule(['group:leads'])],
      });
      const named = await parkedRun();
      await approve(ana, named);
      expect(
        (await setPolicy({ groups: { leads: [bo.id, cy.id] }, rules: [rule(['group:leads'])] }))
          .status,
      ).toBe(200);
      expect((await approve(bo, named)).state).toBe('needs_approval');
      expect((await approve(cy, named)).state).toBe('runnable');

      await setPolicy({
        rules: [{ actions: ['destructive'], required: 2 }],
        no_self_approval: false,
      });
      const own = await parkedRun(cy.client);
      await approve(cy, own);
      await setPolicy({
        rules: [{ actions: ['destructive'], required: 2 }],
        no_self_approval: true,
      });
      expect(await received(own)).toEqual([]);
      expect((await approve(bo, own)).state).toBe('needs_approval');
      expect((await approve(ana, own)).state).toBe('runnable');
    });

    it('a parked row readdressed when its executor is revoked keeps the approvals it had', async () => {
      d = await kernels.deploy(backend);
      const [ana, bo] = [await member('Ana'), await member('Bo')];
      await setPolicy({
        rules: [{ actions: ['destructive'], approvers: [ana.id, bo.id], required: 2 }],
      });
      const runId = await parkedRun();
      await approve(ana, runId);
      const before = (await d.member.get(task(runId))).body.version as string;
      const credentials = (await d.member.get(`${d.ws}/credentials`)).body.credentials as {
        credential_id: string;
        kind: string;
      }[];
      for (const executor of credentials.filter((c) => c.kind === 'executor')) {
        expect(
          (await d.member.post(`${d.ws}/credentials/${executor.credential_id}/revoke`)).status,
        ).toBe(200);
      }
      const readdressed = (await d.member.get(task(runId))).body;
      expect(readdressed.version).not.toBe(before);
      expect(readdressed.approvals.received.map((a: { principal: string }) => a.principal)).toEqual(
        [`member:${ana.id}`],
      );
      expect((await approve(bo, runId)).state).toBe('runnable');
    });

    it('refuses a policy whose quorum no member set can meet, or that names a revoked member', async () => {
      d = await kernels.deploy(backend);
      const [ana, gone] = [await member('Ana'), await member('Gone')];
      await d.member.post(`${d.ws}/credentials/${gone.id}/revoke`);
      const unreachable = await setPolicy({
        groups: { leads: [ana.id, `member:${ana.id}`] },
        rules: [{ tool: 'bash', approvers: ['group:leads', ana.id], required: 2 }],
      });
      expect(unreachable.status).toBe(422);
      expect(unreachable.body.error.problems).toEqual([
        expect.objectContaining({
          code: 'approval_quorum_unreachable',
          pointer: '/policy/rules/0/required',
        }),
      ]);
      const revoked = await setPolicy({
        rules: [{ tool: 'bash', approvers: [ana.id, gone.id], required: 1 }],
      });
      expect(revoked.status).toBe(422);
      expect(revoked.body.error.problems).toEqual([
        expect.objectContaining({
          code: 'approval_approver_revoked',
          pointer: '/policy/rules/0/approvers/1',
        }),
      ]);
      expect((await d.member.get(`${d.ws}/approval_policy`)).body.version).toBe(0);
    });

    it('answers a policy naming tens of thousands of credentials with its problems, not a failure', async () => {
      d = await kernels.deploy(backend);
      const groups: Record<string, string[]> = {};
      for (let g = 0; g < 180; g++) {
        groups[`g${g}`] = Array.from({ length: 200 }, (_, i) => `cred_g${g}x${i}`);
      }
      const answer = await setPolicy({
        groups,
        rules: [{ tool: 'bash', approvers: ['group:g0'] }],
      });
      expect(answer.status).toBe(422);
      expect(answer.body.error.code).toBe('invalid_configuration');
      expect(answer.body.error.problems).toHaveLength(50);
      expect(answer.body.error.detail).toContain('36000 problems');
    });
  });
}
