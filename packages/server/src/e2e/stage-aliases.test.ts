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
 * A run's tool_aliases decide the name its declared rules read, but an executor serves the
 * name the model called. What an admin keeps (a guardrail, the approval policy) reads both
 * names, so an alias the agent declares cannot slip a call past it.
 */
for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`aliased calls (${backend.name})`, () => {
    let d: Deployment;
    const kernels = sharedKernels();
    afterAll(() => kernels.close());
    afterEach(async () => {
      await d?.close();
    });

    /** An agent's run whose model calls `deploy`, aliased to `noop`; answers the row once decided. */
    async function aliasedDeploy(mode: 'bypass' | 'ask') {
      const created = await d.agent.post(`${d.ws}/runs`, {
        approval_mode: mode,
        tool_aliases: { deploy: 'noop' },
        input: 'ship it',
        provider: {
          kind: 'scripted',
          rounds: [{ tool_calls: [{ name: 'deploy', input: { to: 'prod' } }] }, { final: 'done' }],
        },
      });
      expect(created.status).toBe(201);
      const runId = created.body.id as string;
      const row = await waitFor(async () => {
        const read = (await d.member.get(`${d.ws}/runs/${runId}/tasks/t1`)).body;
        return read.state !== 'ready' ? read : null;
      });
      return { runId, row };
    }

    it("an admin's guardrail on deploy refuses a deploy the run aliased to another name", async () => {
      d = await kernels.deploy(backend);
      const put = await putOverlay(d.member, `${d.ws}/overlays/user/me`, [
        {
          ruleSetId: 'supervised',
          rules: [{ verdict: 'deny', guardrail: true, tools: ['deploy'], reason: 'no deploys' }],
        },
      ]);
      expect(put.status).toBe(200);
      const { runId, row } = await aliasedDeploy('bypass');
      expect(row).toMatchObject({
        state: 'failed',
        error: { code: 'approval_denied', detail: 'no deploys' },
      });
      const claim = await d.executor.post(`/executor_api/v1/runs/${runId}/tasks/t1/claim`, {});
      expect(claim.status).toBe(409);
    });

    it('the approval policy for deploy decides a deploy the run aliased to another name', async () => {
      d = await kernels.deploy(backend);
      const { lead1, cy } = await leadsAndOutsider(d, {
        rules: [{ tool: 'deploy', approvers: ['group:leads'] }],
      });
      const { runId, row } = await aliasedDeploy('ask');
      expect(row.state).toBe('needs_approval');
      expect(row.approvals).toMatchObject({ rule_index: 0, required: 1 });
      const task = `${d.ws}/runs/${runId}/tasks/t1`;
      const refused = await cy.client.post(`${task}/approve`, {});
      expect(refused.body.error.code).toBe('approver_not_allowed');
      expect((await lead1.client.post(`${task}/approve`, {})).body.state).toBe('runnable');
    });
  });
}
