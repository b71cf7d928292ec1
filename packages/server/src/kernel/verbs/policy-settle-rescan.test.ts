import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeApprovalPolicy } from '../../store/approvals.js';
import type { Store } from '../../store/store.js';
import {
  addMember,
  type Deployment,
  deploy,
  type MemberOf,
  runOfCalls,
} from '../../testing/harness.js';
import { backends } from '../../testing/stores.js';
import { Kernel } from '../kernel.js';

const all = await backends();

type Event = { type: string; task_key: string | null };

/*
 * A call a put met, whose kernel stopped before settling it and did not start again, waited for
 * its deadline while the other kernels of the store ran on: only a start looked for it. Every
 * kernel's sweep looks at every workspace again each settleRescanMs.
 */
for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `a kernel that stays up while another stopped before settling (${backend.name})`,
    () => {
      let d: Deployment;
      let ana: MemberOf;
      let bo: MemberOf;
      let other: Kernel | undefined;
      beforeAll(async () => {
        d = await deploy(backend);
        [ana, bo] = [await addMember(d, 'Ana'), await addMember(d, 'Bo')];
      });
      afterAll(async () => {
        await other?.stop();
        await d?.close();
      });

      it('approves the met call at its next look, once', async () => {
        const rule = (required: number) => ({
          rules: [{ tool: 'wipe', approvers: [ana.id, bo.id], required }],
        });
        expect((await d.member.put(`${d.ws}/approval_policy`, { policy: rule(2) })).status).toBe(
          200,
        );
        const runId = await runOfCalls(d, {
          mode: 'ask',
          tool: 'wipe',
          count: 2,
          state: 'needs_approval',
        });
        const { tasks } = (await d.member.get(`${d.ws}/runs/${runId}/tasks`)).body;
        const keys = (tasks as { key: string }[]).map((task) => task.key);
        for (const key of keys) {
          expect(
            (await ana.client.post(`${d.ws}/runs/${runId}/tasks/${key}/approve`, {})).status,
          ).toBe(200);
        }
        // Another kernel on the same store, swept by hand, its clock moved by the test.
        let ahead = 0;
        const store = Object.create(d.airlock.store) as Store;
        store.now = () => d.airlock.store.now() + ahead;
        other = new Kernel({ store, settleRescanMs: 60_000 });
        await other.sweep();

        // The put of a kernel that stopped at once: written, never settled.
        await d.airlock.store.transaction((tx) =>
          writeApprovalPolicy(tx, { workspaceId: d.workspaceId, policy: rule(1), principal: 'x' }),
        );
        const states = async () =>
          ((await d.member.get(`${d.ws}/runs/${runId}/tasks`)).body.tasks as { state: string }[])
            .map((task) => task.state)
            .sort();
        await other.sweep();
        expect(await states()).toEqual(['needs_approval', 'needs_approval']);

        ahead = 61_000;
        await other.sweep();
        expect(await states()).toEqual(['runnable', 'runnable']);
        const { events } = (await d.member.get(`${d.ws}/runs/${runId}/events?limit=100`)).body;
        const approved = (events as Event[]).filter((event) => event.type === 'task.approved');
        expect(approved.map((event) => event.task_key).sort()).toEqual([...keys].sort());
      }, 60_000);
    },
  );
}
