import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addMember,
  type Deployment,
  deploy,
  type MemberOf,
  putOverlay,
  waitFor,
} from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const all = await backends();

type Event = { type: string; data: Record<string, unknown>; principal: string | null };

/*
 * Lowering a rule's `required` to what a waiting call already has approves it at once: the put's
 * answer names it, it is runnable, and its task.approved names its approvers and the policy
 * version. Only approvals that still stand count, and a call is approved once however an
 * approval of it races the put.
 */
for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `a policy put that a waiting call's approvals meet (${backend.name})`,
    () => {
      let d: Deployment;
      let ana: MemberOf;
      let bo: MemberOf;
      let cy: MemberOf;
      beforeAll(async () => {
        d = await deploy(backend);
        [ana, bo, cy] = [
          await addMember(d, 'Ana'),
          await addMember(d, 'Bo'),
          await addMember(d, 'Cy'),
        ];
      });
      afterAll(async () => {
        await d?.close();
      });

      const task = (runId: string) => `${d.ws}/runs/${runId}/tasks/t1`;
      const events = async (runId: string) =>
        (await d.member.get(`${d.ws}/runs/${runId}/events?limit=1000`)).body.events as Event[];
      const put = (policy: unknown) => d.member.put(`${d.ws}/approval_policy`, { policy });
      const rule = (approvers: string[], required: number) => ({
        rules: [{ actions: ['destructive'], approvers, required }],
      });

      async function parked(command: string, tool = 'bash'): Promise<string> {
        const created = await d.agent.post(`${d.ws}/runs`, {
          approval_mode: 'ask',
          input: 'clean up',
          provider: {
            kind: 'scripted',
            rounds: [{ tool_calls: [{ name: tool, input: { command } }] }, { final: 'done' }],
          },
        });
        expect(created.status).toBe(201);
        const runId = created.body.id as string;
        await waitFor(
          async () => (await d.member.get(task(runId))).body.state === 'needs_approval',
          {
            timeoutMs: 60_000,
            what: 'the call to park',
          },
        );
        return runId;
      }

      it('approves at once a call whose standing approvals meet the lowered quorum', async () => {
        expect((await put(rule([ana.id, bo.id, cy.id], 2))).status).toBe(200);
        const met = await parked('rm -rf a');
        const waiting = await parked('rm -rf b');
        expect(
          (await ana.client.post(`${task(met)}/approve`, {})).body.approvals.received,
        ).toHaveLength(1);

        const lowered = await put(rule([ana.id, bo.id, cy.id], 1));
        expect(lowered.status).toBe(200);
        expect(lowered.body.approved_calls).toEqual([{ run_id: met, task_key: 't1' }]);
        expect((await d.member.get(task(met))).body.state).toBe('runnable');
        expect((await d.member.get(task(waiting))).body.state).toBe('needs_approval');
        const approved = (await events(met)).filter((event) => event.type === 'task.approved');
        expect(approved).toHaveLength(1);
        expect(approved[0]).toMatchObject({
          principal: `member:${ana.id}`,
          data: {
            state: 'runnable',
            decided_by: `member:${ana.id}`,
            approved_by: [`member:${ana.id}`],
            via: `approval policy version ${lowered.body.version}`,
          },
        });
        // Settled once: an approval after it finds the call no longer waiting.
        expect((await bo.client.post(`${task(met)}/approve`, {})).status).toBe(409);
        // A put that approves nothing says so.
        expect((await put(rule([ana.id, bo.id, cy.id], 1))).body.approved_calls).toEqual([]);
      }, 120_000);

      it('counts only approvals that still stand under the new policy', async () => {
        expect((await put(rule([ana.id, bo.id, cy.id], 2))).status).toBe(200);
        const runId = await parked('rm -rf c');
        await ana.client.post(`${task(runId)}/approve`, {});
        // Ana no longer approves destructive calls: her approval stands no more.
        const lowered = await put(rule([bo.id, cy.id], 1));
        expect(lowered.body.approved_calls).toEqual([]);
        expect((await d.member.get(task(runId))).body.state).toBe('needs_approval');
        expect((await events(runId)).some((event) => event.type === 'task.approved')).toBe(false);
      }, 120_000);

      it('approves a call once when an approval races the put', async () => {
        for (let round = 0; round < 3; round += 1) {
          expect((await put(rule([ana.id, bo.id, cy.id], 2))).status).toBe(200);
          const runId = await parked(`rm -rf race${round}`);
          await ana.client.post(`${task(runId)}/approve`, {});
          const [lowered, second] = await Promise.all([
            put(rule([ana.id, bo.id, cy.id], 1)),
            bo.client.post(`${task(runId)}/approve`, {}),
          ]);
          expect(lowered.status).toBe(200);
          // Bo's approval either completed the quorum first or found the call approved.
          expect([200, 409]).toContain(second.status);
          expect((await d.member.get(task(runId))).body.state).toBe('runnable');
          const approved = (await events(runId)).filter((event) => event.type === 'task.approved');
          expect(approved).toHaveLength(1);
          // (The put may approve other calls too: an earlier test's whose approval stands again.)
          const settledByPut = (lowered.body.approved_calls as { run_id: string }[]).some(
            (call) => call.run_id === runId,
          );
          expect(settledByPut).toBe(second.status === 409);
        }
      }, 180_000);

      it('leaves waiting a call the approval stage refuses now, until the guardrail is lifted', async () => {
        const deploys = (required: number) => ({
          rules: [{ tool: 'deploy', approvers: [ana.id, bo.id, cy.id], required }],
        });
        expect((await put(deploys(2))).status).toBe(200);
        const runId = await parked('ship', 'deploy');
        await ana.client.post(`${task(runId)}/approve`, {});
        const guardrails = `${d.ws}/overlays/user/me`;
        const frozen = [
          {
            ruleSetId: 'supervised',
            rules: [{ verdict: 'deny', guardrail: true, tools: ['deploy'], reason: 'frozen' }],
          },
        ];
        expect((await putOverlay(d.member, guardrails, frozen)).status).toBe(200);
        const lowered = await put(deploys(1));
        expect(lowered.body.approved_calls).not.toContainEqual({ run_id: runId, task_key: 't1' });
        expect((await d.member.get(task(runId))).body.state).toBe('needs_approval');

        expect((await putOverlay(d.member, guardrails, [])).status).toBe(200);
        const again = await put(deploys(1));
        expect(again.body.approved_calls).toContainEqual({ run_id: runId, task_key: 't1' });
        expect((await d.member.get(task(runId))).body.state).toBe('runnable');
      }, 120_000);
    },
  );
}
