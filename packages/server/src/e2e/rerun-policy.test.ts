import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
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
 * A retry that would run a failed call again is a new decision to run it: a
 * call people approved at a park runs again at once only where the approval
 * policy lets the retrier alone approve it; otherwise it parks again for the
 * policy, its approvals started afresh.
 */
for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`running an approved call again (${backend.name})`, () => {
    let d: Deployment;
    const kernels = sharedKernels();
    afterAll(() => kernels.close());
    afterEach(async () => {
      await d?.close();
    });

    const tasks = (runId: string) => `${d.ws}/runs/${runId}/tasks`;

    /** Deploys need `required` approvals of the leads; Cy is a member outside the group. */
    const leadsPolicy = (required: number) =>
      leadsAndOutsider(d, { rules: [{ tool: 'deploy', approvers: ['group:leads'], required }] });

    /** A run whose deploy the given leads approve, which then fails and holds the run. */
    async function failedDeploy(approvers: MemberOf[]): Promise<string> {
      const created = await d.agent.post(`${d.ws}/runs`, {
        approval_mode: 'ask',
        input: 'ship it',
        provider: {
          kind: 'scripted',
          rounds: [
            { tool_calls: [{ name: 'deploy', input: { to: 'prod' }, on_failure: 'hold' }] },
            { final: 'done' },
          ],
        },
      });
      expect(created.status).toBe(201);
      const runId = created.body.id as string;
      await waitFor(
        async () => (await d.member.get(`${tasks(runId)}/t1`)).body.state === 'needs_approval',
      );
      for (const lead of approvers) {
        expect((await lead.client.post(`${tasks(runId)}/t1/approve`, {})).status).toBe(200);
      }
      const committed = await claimAndCommit(d, runId, 't1', {
        outcome: 'failed',
        error: { code: 'exit_1', detail: 'the deploy failed halfway' },
      });
      expect(committed.body.state).toBe('failed');
      return runId;
    }

    const nothingToClaim = async (runId: string) =>
      expect(
        (await d.executor.post(`/executor_api/v1/runs/${runId}/tasks/t1/claim`, {})).status,
      ).toBe(409);

    it('a member outside the approvers retries a deploy two leads approved: it parks for them again', async () => {
      d = await kernels.deploy(backend);
      const { lead1, lead2, cy } = await leadsPolicy(2);
      const runId = await failedDeploy([lead1, lead2]);
      const retried = await cy.client.post(`${tasks(runId)}/t1/retry`, {});
      expect(retried.status).toBe(200);
      expect(retried.body.state).toBe('needs_approval');
      const row = (await d.member.get(`${tasks(runId)}/t1`)).body;
      expect(row.approvals).toMatchObject({ required: 2, received: [] });
      await nothingToClaim(runId);
      const events = (await d.member.get(`${d.ws}/runs/${runId}/events`)).body.events as {
        type: string;
        data: { approvals_required?: number };
      }[];
      expect(events.find((e) => e.type === 'task.retried')?.data.approvals_required).toBe(2);
      expect((await lead1.client.post(`${tasks(runId)}/t1/approve`, {})).body.state).toBe(
        'needs_approval',
      );
      expect((await lead2.client.post(`${tasks(runId)}/t1/approve`, {})).body.state).toBe(
        'runnable',
      );
    });

    it('a lead retries a deploy one lead approves: it runs again at once; anyone else parks it', async () => {
      d = await kernels.deploy(backend);
      const { lead1, cy } = await leadsPolicy(1);
      const first = await failedDeploy([lead1]);
      expect((await lead1.client.post(`${tasks(first)}/t1/retry`, {})).body.state).toBe('runnable');
      const second = await failedDeploy([lead1]);
      expect((await cy.client.post(`${tasks(second)}/t1/retry`, {})).body.state).toBe(
        'needs_approval',
      );
    });
  });
}
