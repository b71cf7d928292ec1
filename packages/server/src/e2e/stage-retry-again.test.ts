import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  claimAndCommit,
  type Deployment,
  leadsAndOutsider,
  type MemberOf,
  putOverlay,
  sharedKernels,
  waitFor,
} from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const all = await backends();

/*
 * A retry that runs a failed call again crosses the approval stage again, as it stands now:
 * a guardrail added since refuses it, and an author row granted by its origin (its appender
 * could approve it alone) runs again only where the retrier could approve it alone too.
 */
for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`a failed call run again (${backend.name})`, () => {
    let d: Deployment;
    const kernels = sharedKernels();
    afterAll(() => kernels.close());
    afterEach(async () => {
      await d?.close();
    });

    const tasks = (runId: string) => `${d.ws}/runs/${runId}/tasks`;
    const executorTask = (runId: string, key: string) =>
      `/executor_api/v1/runs/${runId}/tasks/${key}`;

    /** Claims a row and commits it failed, so it holds its run (its on_failure is hold). */
    async function failIt(runId: string, key: string): Promise<void> {
      const committed = await claimAndCommit(d, runId, key, {
        outcome: 'failed',
        error: { code: 'exit_1', detail: 'it failed halfway' },
      });
      expect(committed.body.state).toBe('failed');
    }

    /** A run whose model call waits for a person, so members can append to it. */
    async function waitingRun(): Promise<string> {
      const created = await d.agent.post(`${d.ws}/runs`, {
        approval_mode: 'ask',
        input: 'ship it',
        provider: {
          kind: 'scripted',
          rounds: [{ tool_calls: [{ name: 'noop', input: {} }] }, { final: 'done' }],
        },
      });
      expect(created.status).toBe(201);
      const runId = created.body.id as string;
      await waitFor(
        async () => (await d.member.get(`${tasks(runId)}/t1`)).body.state === 'needs_approval',
      );
      return runId;
    }

    /** A deploy lead1 appends (granted by its origin: one lead may approve it), failed and held. */
    async function failedAppendedDeploy(lead1: MemberOf): Promise<{ runId: string; key: string }> {
      const runId = await waitingRun();
      const appended = await lead1.client.post(tasks(runId), {
        tool_name: 'deploy',
        tool_input: { to: 'prod' },
        on_failure: 'hold',
      });
      expect(appended.status).toBe(201);
      expect(appended.body.state).toBe('runnable');
      const key = appended.body.key as string;
      await failIt(runId, key);
      return { runId, key };
    }

    it("a member outside the approvers retries a lead's appended deploy: it parks for the leads", async () => {
      d = await kernels.deploy(backend);
      const { lead1, lead2, cy } = await leadsAndOutsider(d, {
        rules: [{ tool: 'deploy', approvers: ['group:leads'] }],
      });
      const { runId, key } = await failedAppendedDeploy(lead1);
      const retried = await cy.client.post(`${tasks(runId)}/${key}/retry`, {});
      expect(retried.status).toBe(200);
      expect(retried.body.state).toBe('needs_approval');
      const row = (await d.member.get(`${tasks(runId)}/${key}`)).body;
      expect(row.approvals).toMatchObject({ required: 1, received: [] });
      expect((await d.executor.post(`${executorTask(runId, key)}/claim`, {})).status).toBe(409);
      const approve = (who: MemberOf) => who.client.post(`${tasks(runId)}/${key}/approve`, {});
      expect((await approve(cy)).body.error.code).toBe('approver_not_allowed');
      expect((await approve(lead2)).body.state).toBe('runnable');
    });

    it('a lead retries the deploy they appended: it runs again at once', async () => {
      d = await kernels.deploy(backend);
      const { lead1 } = await leadsAndOutsider(d, {
        rules: [{ tool: 'deploy', approvers: ['group:leads'] }],
      });
      const { runId, key } = await failedAppendedDeploy(lead1);
      const retried = await lead1.client.post(`${tasks(runId)}/${key}/retry`, {});
      expect(retried.status).toBe(200);
      expect(retried.body.state).toBe('runnable');
    });

    it('a guardrail added while a failed call held its run refuses the retry; the hold stays', async () => {
      d = await kernels.deploy(backend);
      const created = await d.agent.post(`${d.ws}/runs`, {
        approval_mode: 'bypass',
        input: 'clean up',
        provider: {
          kind: 'scripted',
          rounds: [
            {
              tool_calls: [
                { name: 'bash', input: { command: 'rm -rf build' }, on_failure: 'hold' },
              ],
            },
            { final: 'done' },
          ],
        },
      });
      expect(created.status).toBe(201);
      const runId = created.body.id as string;
      await waitFor(
        async () => (await d.member.get(`${tasks(runId)}/t1`)).body.state === 'runnable',
      );
      await failIt(runId, 't1');
      const put = await putOverlay(d.member, `${d.ws}/overlays/user/me`, [
        {
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
        },
      ]);
      expect(put.status).toBe(200);
      const retried = await d.member.post(`${tasks(runId)}/t1/retry`, {});
      expect(retried.status).toBe(409);
      expect(retried.body.error.code).toBe('retry_refused');
      expect(retried.body.error.detail).toContain('no recursive deletes');
      const row = (await d.member.get(`${tasks(runId)}/t1`)).body;
      expect(row).toMatchObject({ state: 'failed', error: { code: 'exit_1' } });
      expect((await d.executor.post(`${executorTask(runId, 't1')}/claim`, {})).status).toBe(409);
    });
  });
}
