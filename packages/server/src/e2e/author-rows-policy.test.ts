import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  addMember,
  type Client,
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
 * A row a member appends through the tasks door is granted by its origin only where the
 * approval policy would let that member alone approve it; elsewhere it parks for the policy,
 * the appender's own approval counted when they may give one. An admin's guardrail binds it
 * as it binds the model's calls.
 */
for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`author rows under the policy (${backend.name})`, () => {
    let d: Deployment;
    const kernels = sharedKernels();
    afterAll(() => kernels.close());
    afterEach(async () => {
      await d?.close();
    });

    const RM = { command: 'rm -rf build' };
    const tasks = (runId: string) => `${d.ws}/runs/${runId}/tasks`;

    /** Two leads must approve destructive calls; Cy is a member outside the group. */
    const leadsPolicy = (extra: Record<string, unknown> = {}) =>
      leadsAndOutsider(d, {
        rules: [{ actions: ['destructive'], approvers: ['group:leads'], required: 2 }],
        ...extra,
      });

    /** A running run whose model call waits, so people can append to it. */
    async function waitingRun(by: Client = d.agent): Promise<string> {
      const created = await by.post(`${d.ws}/runs`, {
        approval_mode: 'ask',
        input: 'clean up',
        provider: {
          kind: 'scripted',
          rounds: [{ tool_calls: [{ name: 'deploy', input: {} }] }, { final: 'done' }],
        },
      });
      expect(created.status).toBe(201);
      const runId = created.body.id as string;
      await waitFor(
        async () => (await d.member.get(`${tasks(runId)}/t1`)).body.state === 'needs_approval',
      );
      return runId;
    }

    const append = async (who: MemberOf | Client, runId: string, body: unknown) => {
      const by = 'client' in who ? who.client : who;
      const answer = await by.post(tasks(runId), body);
      expect(answer.status).toBe(201);
      return answer.body;
    };
    const received = async (runId: string, key: string) =>
      (
        (await d.member.get(`${tasks(runId)}/${key}`)).body.approvals.received as {
          principal: string;
        }[]
      ).map((approval) => approval.principal);

    it('a member outside the named approvers appends a destructive call: it parks for two leads', async () => {
      d = await kernels.deploy(backend);
      const { lead1, lead2, cy } = await leadsPolicy();
      const runId = await waitingRun();
      const row = await append(cy, runId, { tool_name: 'bash', tool_input: RM });
      expect(row).toMatchObject({ origin: 'author', state: 'needs_approval' });
      expect(await received(runId, row.key)).toEqual([]);
      const claim = await d.executor.post(
        `/executor_api/v1/runs/${runId}/tasks/${row.key}/claim`,
        {},
      );
      expect(claim.status).toBe(409);
      const approve = (who: MemberOf) => who.client.post(`${tasks(runId)}/${row.key}/approve`, {});
      expect((await approve(cy)).body.error.code).toBe('approver_not_allowed');
      expect((await approve(lead1)).body.state).toBe('needs_approval');
      expect((await approve(lead2)).body.state).toBe('runnable');
      // What no rule asks more of stays granted by its origin, as before.
      const ls = await append(cy, runId, { tool_name: 'bash', tool_input: { command: 'ls' } });
      expect(ls.state).toBe('runnable');
    });

    it("a named approver's append counts as the first approval; the second lead's runs it", async () => {
      d = await kernels.deploy(backend);
      const { lead1, lead2 } = await leadsPolicy();
      const runId = await waitingRun();
      const row = await append(lead1, runId, { tool_name: 'bash', tool_input: RM });
      expect(row.state).toBe('needs_approval');
      expect(await received(runId, row.key)).toEqual([`member:${lead1.id}`]);
      const events = (await d.member.get(`${d.ws}/runs/${runId}/events`)).body.events as {
        type: string;
        task_key: string | null;
        data: { received?: number; required?: number };
      }[];
      expect(
        events.find((e) => e.type === 'task.approval_added' && e.task_key === row.key)?.data,
      ).toMatchObject({ received: 1, required: 2 });
      const again = await lead1.client.post(`${tasks(runId)}/${row.key}/approve`, {});
      expect(again.body.state).toBe('needs_approval');
      const second = await lead2.client.post(`${tasks(runId)}/${row.key}/approve`, {});
      expect(second.body.state).toBe('runnable');
    });

    it('under no_self_approval, a member appending to a run they started waits for someone else', async () => {
      d = await kernels.deploy(backend);
      const { lead1, cy } = await leadsPolicy({ no_self_approval: true });
      const runId = await waitingRun(cy.client);
      const row = await append(cy, runId, { tool_name: 'bash', tool_input: { command: 'ls' } });
      expect(row.state).toBe('needs_approval');
      expect(await received(runId, row.key)).toEqual([]);
      const approved = await lead1.client.post(`${tasks(runId)}/${row.key}/approve`, {});
      expect(approved.body.state).toBe('runnable');
    });

    it("under no_self_approval, a member's append to an agent's run waits for someone else, and its appender may not approve it", async () => {
      d = await kernels.deploy(backend);
      const { lead1, cy } = await leadsPolicy({ no_self_approval: true });
      const runId = await waitingRun();
      const row = await append(cy, runId, { tool_name: 'bash', tool_input: { command: 'ls' } });
      expect(row.state).toBe('needs_approval');
      expect(await received(runId, row.key)).toEqual([]);
      const own = await cy.client.post(`${tasks(runId)}/${row.key}/approve`, {});
      expect(own.status).toBe(403);
      expect(own.body.error.code).toBe('self_approval_refused');
      expect(own.body.error.detail).toContain(`appended task ${row.key}`);
      expect((await d.member.get(`${tasks(runId)}/${row.key}`)).body.state).toBe('needs_approval');
      // A lead's append of a destructive call: their own approval is not counted either.
      const rm = await append(lead1, runId, { tool_name: 'bash', tool_input: RM });
      expect(rm.state).toBe('needs_approval');
      expect(await received(runId, rm.key)).toEqual([]);
      // Anyone else may approve, and the appender may still deny.
      const approved = await lead1.client.post(`${tasks(runId)}/${row.key}/approve`, {});
      expect(approved.body.state).toBe('runnable');
      const denied = await lead1.client.post(`${tasks(runId)}/${rm.key}/deny`, { reason: 'no' });
      expect(denied.status).toBe(200);
    });

    it("a lead's edit of a parked author row still needs the second lead", async () => {
      d = await kernels.deploy(backend);
      const { lead1, lead2, cy } = await leadsPolicy();
      const runId = await waitingRun();
      const row = await append(cy, runId, { tool_name: 'bash', tool_input: RM });
      const at = `${tasks(runId)}/${row.key}`;
      const edited = await lead1.client.post(`${at}/approve`, {
        tool_input: { command: 'rm -rf build/cache' },
      });
      expect(edited.status).toBe(200);
      expect(edited.body.state).toBe('needs_approval');
      expect(edited.body.approvals.received).toHaveLength(1);
      expect((await lead2.client.post(`${at}/approve`, {})).body.state).toBe('runnable');
    });

    it('a retry of an expired author row parks it again for the quorum', async () => {
      d = await kernels.deploy(backend, { parkTtlMs: 1000 });
      const { cy } = await leadsPolicy();
      const runId = await waitingRun();
      const row = await append(cy, runId, {
        tool_name: 'bash',
        tool_input: RM,
        on_failure: 'hold',
      });
      expect(row.state).toBe('needs_approval');
      await waitFor(async () => {
        const run = await d.member.get(`${d.ws}/runs/${runId}`);
        return run.body.attention.some((a: { reason: string }) => a.reason === 'failure_hold');
      });
      const retried = await cy.client.post(`${tasks(runId)}/${row.key}/retry`);
      expect(retried.status).toBe(200);
      expect(retried.body.state).toBe('needs_approval');
    });

    it("an admin's guardrail binds an appended row: a deny refuses it, an ask parks it", async () => {
      d = await kernels.deploy(backend);
      const cy = await addMember(d, 'Cy');
      const guardrail = (verdict: string, command: string) => ({
        verdict,
        guardrail: true,
        tools: ['bash'],
        argument_patterns: { '/command': command },
        reason: `${verdict} ${command}`,
      });
      const put = await putOverlay(d.member, `${d.ws}/overlays/user/me`, [
        {
          ruleSetId: 'supervised',
          rules: [guardrail('deny', '*rm -rf*'), guardrail('ask', 'git push*')],
        },
      ]);
      expect(put.status).toBe(200);
      const runId = await waitingRun();
      const refused = await append(cy, runId, { tool_name: 'bash', tool_input: RM });
      expect(refused).toMatchObject({ state: 'failed', error: { code: 'approval_denied' } });
      const push = { command: 'git push origin main' };
      const asked = await append(cy, runId, { tool_name: 'bash', tool_input: push });
      expect(asked.state).toBe('needs_approval');
      // A guardrail's ask wants a person to look: appending the call is no approval of it.
      expect(await received(runId, asked.key)).toEqual([]);
      const free = await append(cy, runId, { tool_name: 'bash', tool_input: { command: 'ls' } });
      expect(free.state).toBe('runnable');
    });
  });
}
