import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeApprovalPolicy } from '../../store/approvals.js';
import {
  addMember,
  type Deployment,
  deploy,
  type MemberOf,
  runOfCalls,
} from '../../testing/harness.js';
import { backends } from '../../testing/stores.js';
import { settleMetQuorums } from './policy-settle.js';

const all = await backends();

type Event = { type: string; data: Record<string, unknown> };

/*
 * Two puts racing: the first's settle runs after the second committed, and reads the second's
 * policy. A call it approves is approved by that policy, and its task.approved says so (it
 * named the first put's version, whose policy no longer applied).
 */
for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `a policy settle that runs after a later put (${backend.name})`,
    () => {
      let d: Deployment;
      let ana: MemberOf;
      let bo: MemberOf;
      beforeAll(async () => {
        d = await deploy(backend);
        [ana, bo] = [await addMember(d, 'Ana'), await addMember(d, 'Bo')];
      });
      afterAll(async () => {
        await d?.close();
      });

      const rule = (approvers: string[], required: number) => ({
        rules: [{ tool: 'wipe', approvers, required }],
      });
      const write = async (policy: Record<string, unknown>) =>
        (
          await d.airlock.store.transaction((tx) =>
            writeApprovalPolicy(tx, { workspaceId: d.workspaceId, policy, principal: 'member:x' }),
          )
        ).version;

      it('names the version that approved the call', async () => {
        expect(
          (await d.member.put(`${d.ws}/approval_policy`, { policy: rule([ana.id, bo.id], 2) }))
            .status,
        ).toBe(200);
        const runId = await runOfCalls(d, {
          mode: 'ask',
          tool: 'wipe',
          count: 1,
          state: 'needs_approval',
        });
        const { tasks } = (await d.member.get(`${d.ws}/runs/${runId}/tasks`)).body;
        const row = `${d.ws}/runs/${runId}/tasks/${tasks[0].key}`;
        expect((await ana.client.post(`${row}/approve`, {})).status).toBe(200);
        // The first put lowers the quorum, the second names Ana alone; the first's settle
        // runs after both committed.
        const first = await write(rule([ana.id, bo.id], 1));
        const second = await write(rule([ana.id], 1));
        const settled = await settleMetQuorums(d.airlock.kernel.context, {
          workspaceId: d.workspaceId,
          policyVersion: first,
        });
        expect(settled).toEqual([{ run_id: runId, task_key: tasks[0].key }]);
        const { events } = (await d.member.get(`${d.ws}/runs/${runId}/events?limit=100`)).body;
        const approved = (events as Event[]).filter((event) => event.type === 'task.approved');
        expect(approved).toHaveLength(1);
        expect(approved[0]!.data.via).toBe(`approval policy version ${second}`);
      }, 60_000);
    },
  );
}
