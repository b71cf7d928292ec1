import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../store/store.js';
import { gatedContext } from '../../testing/gated-store.js';
import { type SettleWorkspace, settleWorkspace } from '../../testing/settle-workspace.js';
import { backends } from '../../testing/stores.js';
import { Kernel } from '../kernel.js';
import { settleMetQuorums } from './policy-settle.js';

const all = await backends();

/*
 * The settle queue lived in a module-level map keyed by the kernel's instance id: a stopped
 * kernel's entry was dropped, but the next settle of that kernel (a sweep, a put's pass ending
 * after the stop) made a fresh one, which looked at every workspace and approved calls from a
 * kernel that was closed, and stayed in the process for good. Each kernel's context owns its
 * queue now, emptied and closed at the stop.
 */
for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `the settle queue of a stopped kernel (${backend.name})`,
    () => {
      let w: SettleWorkspace;
      const kernels: Kernel[] = [];
      beforeAll(async () => {
        w = await settleWorkspace(backend);
      });
      afterAll(async () => {
        for (const kernel of kernels) await kernel.stop();
        await w?.d.close();
      });

      it('keeps nothing and settles nothing after the stop; another kernel never sees it', async () => {
        expect((await w.put(w.rule(2))).status).toBe(200);
        const { runId } = await w.parkApprovedByAna(2);
        // Two more kernels on the store, swept by hand, their clock moved by the test.
        let ahead = 0;
        const store = Object.create(w.d.airlock.store) as Store;
        store.now = () => w.d.airlock.store.now() + ahead;
        const [first, second] = [new Kernel({ store }), new Kernel({ store })];
        kernels.push(first, second);

        // A put of the first kernel whose settle failed: its workspace waits for a retry.
        const version = await w.writeUnsettled(w.rule(1));
        const failing = gatedContext(first.context, {
          inside: async () => {
            throw new Error('the store went away at the commit');
          },
        });
        expect(
          await settleMetQuorums(failing, { workspaceId: w.d.workspaceId, policyVersion: version }),
        ).toEqual([]);
        expect([...first.context.settles.workspaces.keys()]).toEqual([w.d.workspaceId]);
        expect(second.context.settles.workspaces.size).toBe(0);

        await first.stop();
        expect(first.context.settles.workspaces.size).toBe(0);
        // Past its retry and its rescan: a stopped kernel settles nothing.
        ahead = 60 * 60 * 1000;
        await first.sweep();
        expect(await w.states(runId)).toEqual(['needs_approval', 'needs_approval']);
        // A put's pass that ends after the stop leaves nothing queued.
        expect(
          await settleMetQuorums(failing, { workspaceId: w.d.workspaceId, policyVersion: version }),
        ).toEqual([]);
        expect(first.context.settles.workspaces.size).toBe(0);

        // The other kernel, still up, settles them at its first look, each once.
        await second.sweep();
        expect(await w.states(runId)).toEqual(['runnable', 'runnable']);
        expect(await w.approvedEvents(runId)).toHaveLength(2);
      }, 60_000);
    },
  );
}
