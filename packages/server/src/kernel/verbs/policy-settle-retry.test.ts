import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeApprovalPolicy } from '../../store/approvals.js';
import { gatedContext } from '../../testing/gated-store.js';
import {
  addMember,
  type Deployment,
  deploy,
  type MemberOf,
  runOfCalls,
  waitFor,
} from '../../testing/harness.js';
import { backends } from '../../testing/stores.js';
import { settleMetQuorums } from './policy-settle.js';

const all = await backends();

type Event = { type: string; task_key: string | null };

/*
 * A call whose settling unit failed (a store error at its commit) was left waiting for good,
 * and before that the first failure stopped the whole pass: every later met call waited too.
 * The pass goes on past it, and the kernel's sweep settles the failed one again.
 */
for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `a met call whose settling unit failed (${backend.name})`,
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

      const rule = (required: number) => ({
        rules: [{ tool: 'wipe', approvers: [ana.id, bo.id], required }],
      });

      it('is settled again by the sweep, and the calls after it at once', async () => {
        expect((await d.member.put(`${d.ws}/approval_policy`, { policy: rule(2) })).status).toBe(
          200,
        );
        const runId = await runOfCalls(d, {
          mode: 'ask',
          tool: 'wipe',
          count: 3,
          state: 'needs_approval',
        });
        const { tasks } = (await d.member.get(`${d.ws}/runs/${runId}/tasks`)).body;
        const keys = (tasks as { key: string }[]).map((task) => task.key);
        for (const key of keys) {
          const row = `${d.ws}/runs/${runId}/tasks/${key}`;
          expect((await ana.client.post(`${row}/approve`, {})).status).toBe(200);
        }
        const version = (
          await d.airlock.store.transaction((tx) =>
            writeApprovalPolicy(tx, {
              workspaceId: d.workspaceId,
              policy: rule(1),
              principal: 'member:x',
            }),
          )
        ).version;
        // The first call's unit fails before its COMMIT (the store rolls it back).
        let failures = 0;
        const failingOnce = gatedContext(d.airlock.kernel.context, {
          inside: async () => {
            failures += 1;
            if (failures === 1) throw new Error('the store went away at the commit');
          },
        });
        const settled = await settleMetQuorums(failingOnce, {
          workspaceId: d.workspaceId,
          policyVersion: version,
        });
        expect(settled.map((call) => call.task_key)).toEqual(keys.slice(1));

        await waitFor(
          async () =>
            (await d.member.get(`${d.ws}/runs/${runId}/tasks/${keys[0]}`)).body.state ===
            'runnable',
          { timeoutMs: 30_000, what: 'the sweep to settle the call whose unit failed' },
        );
        const { events } = (await d.member.get(`${d.ws}/runs/${runId}/events?limit=100`)).body;
        const approved = (events as Event[]).filter((event) => event.type === 'task.approved');
        expect(approved.map((event) => event.task_key).sort()).toEqual([...keys].sort());
      }, 60_000);
    },
  );
}
