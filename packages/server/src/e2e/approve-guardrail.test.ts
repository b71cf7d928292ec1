import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Deployment,
  deploy,
  leadsAndOutsider,
  putOverlay,
  waitFor,
} from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const all = await backends();
const OWN_OVERLAY = (d: Deployment) => `${d.ws}/overlays/user/me`;

/** An admin's guardrail that refuses every deploy, whatever set a run selected. */
const NO_DEPLOYS = [
  {
    ruleSetId: 'supervised',
    rules: [
      { verdict: 'deny', guardrail: true, tools: ['deploy'], reason: 'deploys are frozen today' },
    ],
  },
];

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `an approval after a guardrail was added (${backend.name})`,
    () => {
      let d: Deployment;
      const task = (runId: string) => `${d.ws}/runs/${runId}/tasks/t1`;

      /** A run in ask mode whose one deploy call parks. */
      async function parkedDeploy(): Promise<string> {
        const created = await d.agent.post(`${d.ws}/runs`, {
          approval_mode: 'ask',
          input: 'ship it',
          provider: {
            kind: 'scripted',
            rounds: [
              { tool_calls: [{ name: 'deploy', input: { env: 'prod' } }] },
              { final: 'done' },
            ],
          },
        });
        expect(created.status).toBe(201);
        const runId = created.body.id as string;
        await waitFor(
          async () => (await d.member.get(task(runId))).body.state === 'needs_approval',
        );
        return runId;
      }

      async function guardrails(groups: unknown[]): Promise<void> {
        expect((await putOverlay(d.member, OWN_OVERLAY(d), groups)).status).toBe(200);
      }

      async function eventTypes(runId: string): Promise<string[]> {
        const events = (await d.member.get(`${d.ws}/runs/${runId}/events`)).body.events as {
          type: string;
        }[];
        return events.map((event) => event.type);
      }

      beforeAll(async () => {
        d = await deploy(backend);
      });
      afterAll(async () => {
        await d.close();
      });

      it('refuses the approve with the guardrail reason, changes nothing, and lets a deny or a lifted guardrail end it', async () => {
        const runId = await parkedDeploy();
        await guardrails(NO_DEPLOYS);
        const before = (await d.member.get(task(runId))).body;
        const refused = await d.member.post(`${task(runId)}/approve`, {});
        expect(refused.status).toBe(409);
        expect(refused.body.error.code).toBe('approval_refused');
        expect(refused.body.error.detail).toContain('deploys are frozen today');
        const after = (await d.member.get(task(runId))).body;
        expect(after.state).toBe('needs_approval');
        expect(after.version).toBe(before.version);
        expect(await eventTypes(runId)).not.toContain('task.approved');
        // With an edit the call crosses the stage as edited, and the guardrail binds it too.
        const edited = await d.member.post(`${task(runId)}/approve`, {
          tool_input: { env: 'staging' },
        });
        expect(edited.status).toBe(422);
        expect(edited.body.error.code).toBe('edit_refused');
        expect((await d.member.get(task(runId))).body.version).toBe(before.version);
        // Once the admin lifts the guardrail the same call can be approved.
        await guardrails([]);
        const approved = await d.member.post(`${task(runId)}/approve`, {});
        expect(approved.status).toBe(200);
        expect(approved.body.state).toBe('runnable');
      });

      it('a deny still ends a call the guardrail holds', async () => {
        const runId = await parkedDeploy();
        await guardrails(NO_DEPLOYS);
        const denied = await d.member.post(`${task(runId)}/deny`, { reason: 'not today' });
        expect(denied.status).toBe(200);
        expect(denied.body.state).toBe('failed');
        await guardrails([]);
      });

      // Last: it leaves the workspace with a quorum policy and the guardrail in place.
      it('refuses the approval that would complete a quorum, keeping the one given before', async () => {
        const { lead1, lead2 } = await leadsAndOutsider(d, {
          rules: [{ tool: 'deploy', approvers: ['group:leads'], required: 2 }],
        });
        const runId = await parkedDeploy();
        const first = await lead1.client.post(`${task(runId)}/approve`, {});
        expect(first.status).toBe(200);
        expect(first.body.state).toBe('needs_approval');
        await guardrails(NO_DEPLOYS);
        const last = await lead2.client.post(`${task(runId)}/approve`, {});
        expect(last.status).toBe(409);
        expect(last.body.error.code).toBe('approval_refused');
        expect(last.body.error.detail).toContain('deploys are frozen today');
        const after = (await d.member.get(task(runId))).body;
        expect(after.state).toBe('needs_approval');
        expect(after.approvals.received.map((a: { principal: string }) => a.principal)).toEqual([
          first.body.approvals.received[0].principal,
        ]);
      });
    },
  );
}
