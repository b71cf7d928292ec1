import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type Deployment, leadsAndOutsider, sharedKernels, waitFor } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const all = await backends();

/*
 * The approval policy is the admin's, the aliases the agent's: a call the run aliased from
 * deploy to noop answers to the policy's rule for deploy even where an earlier rule covers noop
 * more leniently, so an agent cannot pick an alias target to choose its approvers.
 */
for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `aliased calls and the approval policy (${backend.name})`,
    () => {
      let d: Deployment;
      const kernels = sharedKernels();
      afterAll(() => kernels.close());
      afterEach(async () => {
        await d?.close();
      });

      async function parkedDeploy() {
        const created = await d.agent.post(`${d.ws}/runs`, {
          approval_mode: 'ask',
          tool_aliases: { deploy: 'noop' },
          input: 'ship it',
          provider: {
            kind: 'scripted',
            rounds: [
              { tool_calls: [{ name: 'deploy', input: { to: 'prod' } }] },
              { final: 'done' },
            ],
          },
        });
        expect(created.status).toBe(201);
        const runId = created.body.id as string;
        const row = await waitFor(async () => {
          const read = (await d.member.get(`${d.ws}/runs/${runId}/tasks/t1`)).body;
          return read.state !== 'ready' ? read : null;
        });
        return { row, task: `${d.ws}/runs/${runId}/tasks/t1` };
      }

      it('an earlier lenient rule for the alias target does not lift the rule for the called name', async () => {
        d = await kernels.deploy(backend);
        const { lead1, lead2, cy } = await leadsAndOutsider(d, {
          rules: [
            { tool: 'noop', required: 1 },
            { tool: 'deploy', approvers: ['group:leads'], required: 2 },
          ],
        });
        const { row, task } = await parkedDeploy();
        expect(row).toMatchObject({
          state: 'needs_approval',
          approvals: { rule_index: 1, required: 2 },
        });
        const outsider = await cy.client.post(`${task}/approve`, {});
        expect(outsider.body.error?.code).toBe('approver_not_allowed');
        expect((await lead1.client.post(`${task}/approve`, {})).body.state).toBe('needs_approval');
        expect((await lead2.client.post(`${task}/approve`, {})).body.state).toBe('runnable');
      });

      it('the two rules compose: the larger quorum, among members both rules name', async () => {
        d = await kernels.deploy(backend);
        const { lead1, lead2, cy } = await leadsAndOutsider(d);
        const put = await d.member.put(`${d.ws}/approval_policy`, {
          policy: {
            rules: [
              { tool: 'noop', approvers: [lead1.id, cy.id], required: 1 },
              { tool: 'deploy', approvers: [lead1.id, lead2.id], required: 1 },
            ],
          },
        });
        expect(put.status).toBe(200);
        const { row, task } = await parkedDeploy();
        expect(row.approvals).toMatchObject({ required: 1, approvers: [`member:${lead1.id}`] });
        for (const other of [cy, lead2]) {
          const refused = await other.client.post(`${task}/approve`, {});
          expect(refused.body.error?.code).toBe('approver_not_allowed');
        }
        expect((await lead1.client.post(`${task}/approve`, {})).body.state).toBe('runnable');
      });
    },
  );
}
