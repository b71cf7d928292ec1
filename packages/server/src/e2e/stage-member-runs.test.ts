import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  type Client,
  claimAndCommit,
  type Deployment,
  leadsAndOutsider,
  type MemberOf,
  sharedKernels,
  waitFor,
} from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const all = await backends();

/*
 * A member's standalone run carries the mode and rules of the member's own create call, so a
 * call they grant is the member's own word: it stands only where the approval policy lets that
 * member alone approve it, as for a row they append; elsewhere it parks for the policy. An
 * agent's run keeps its declaration's grants (the policy governs who ends a park).
 */
for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`a member's own run (${backend.name})`, () => {
    let d: Deployment;
    const kernels = sharedKernels();
    afterAll(() => kernels.close());
    afterEach(async () => {
      await d?.close();
    });

    const tasks = (runId: string) => `${d.ws}/runs/${runId}/tasks`;
    const claim = (runId: string, key: string) =>
      d.executor.post(`/executor_api/v1/runs/${runId}/tasks/${key}/claim`, {});

    /** Deploys need `required` approvals of the leads; Cy is a member outside the group. */
    const leadsPolicy = (required: number) =>
      leadsAndOutsider(d, { rules: [{ tool: 'deploy', approvers: ['group:leads'], required }] });

    /** A standalone run under bypass whose model composes one call; answers the row once decided. */
    async function bypassRun(by: Client, name: string) {
      const created = await by.post(`${d.ws}/runs`, {
        approval_mode: 'bypass',
        input: 'ship it',
        provider: {
          kind: 'scripted',
          rounds: [{ tool_calls: [{ name, input: { to: 'prod' } }] }, { final: 'done' }],
        },
      });
      expect(created.status).toBe(201);
      const runId = created.body.id as string;
      const row = await waitFor(async () => {
        const read = (await d.member.get(`${tasks(runId)}/t1`)).body;
        return read.state !== 'ready' ? read : null;
      });
      return { runId, row };
    }

    it('a member outside the approvers grants a deploy by their own bypass run: it parks for the leads', async () => {
      d = await kernels.deploy(backend);
      const { lead1, cy } = await leadsPolicy(1);
      const { runId, row } = await bypassRun(cy.client, 'deploy');
      expect(row).toMatchObject({ origin: 'model', state: 'needs_approval' });
      expect(row.approvals).toMatchObject({ required: 1, received: [] });
      expect((await claim(runId, 't1')).status).toBe(409);
      const approve = (who: MemberOf) => who.client.post(`${tasks(runId)}/t1/approve`, {});
      expect((await approve(cy)).body.error.code).toBe('approver_not_allowed');
      expect((await approve(lead1)).body.state).toBe('runnable');
      // What no rule asks more of stays granted by the member's mode, as before.
      const other = await bypassRun(cy.client, 'ls');
      expect(other.row.state).toBe('runnable');
    });

    it("a lead's own run counts the lead's approval first; the second lead's runs it", async () => {
      d = await kernels.deploy(backend);
      const { lead1, lead2 } = await leadsPolicy(2);
      const { runId, row } = await bypassRun(lead1.client, 'deploy');
      expect(row.state).toBe('needs_approval');
      expect(row.approvals.received.map((a: { principal: string }) => a.principal)).toEqual([
        `member:${lead1.id}`,
      ]);
      const second = await lead2.client.post(`${tasks(runId)}/t1/approve`, {});
      expect(second.body.state).toBe('runnable');
    });

    it('a member outside the approvers declares a deploy hook on their own run: it parks for the leads', async () => {
      d = await kernels.deploy(backend);
      const { lead1, cy } = await leadsPolicy(1);
      const created = await cy.client.post(`${d.ws}/runs`, {
        approval_mode: 'rules',
        lifecycle_hooks: { turn_start: { tool: 'deploy', timeout_ms: 60_000 } },
        input: 'ship it',
        provider: { kind: 'scripted', rounds: [{ final: 'done' }] },
      });
      expect(created.status).toBe(201);
      const runId = created.body.id as string;
      const row = await waitFor(async () => {
        const read = (await d.member.get(`${tasks(runId)}/t1`)).body;
        return read.state !== 'ready' ? read : null;
      });
      expect(row).toMatchObject({ kind: 'hook', tool_name: 'deploy', state: 'needs_approval' });
      expect((await claim(runId, 't1')).status).toBe(409);
      const approved = await lead1.client.post(`${tasks(runId)}/t1/approve`, {});
      expect(approved.body.state).toBe('runnable');
      const failed = await claimAndCommit(d, runId, 't1', {
        outcome: 'failed',
        error: { code: 'exit_1', detail: 'the deploy failed halfway' },
      });
      expect(failed.body.state).toBe('failed');
      // Running it again is a new decision: Cy's retry parks it for the leads again.
      const retried = await cy.client.post(`${tasks(runId)}/t1/retry`, {});
      expect(retried.body.state).toBe('needs_approval');
      expect((await claim(runId, 't1')).status).toBe(409);
    });

    it("an agent's bypass run keeps its declaration's grant", async () => {
      d = await kernels.deploy(backend);
      await leadsPolicy(2);
      const { row } = await bypassRun(d.agent, 'deploy');
      expect(row.state).toBe('runnable');
    });
  });
}
