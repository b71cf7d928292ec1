import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../store/store.js';
import { type SettleWorkspace, settleWorkspace } from '../../testing/settle-workspace.js';
import { backends } from '../../testing/stores.js';
import { Kernel } from '../kernel.js';

const all = await backends();

/*
 * A call a put met, whose kernel stopped before settling it and did not start again, waited for
 * its deadline while the other kernels of the store ran on: only a start looked for it. Every
 * kernel's sweep looks at every workspace again each settleRescanMs.
 */
for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `a kernel that stays up while another stopped before settling (${backend.name})`,
    () => {
      let w: SettleWorkspace;
      let other: Kernel | undefined;
      beforeAll(async () => {
        w = await settleWorkspace(backend);
      });
      afterAll(async () => {
        await other?.stop();
        await w?.d.close();
      });

      it('approves the met call at its next look, once', async () => {
        expect((await w.put(w.rule(2))).status).toBe(200);
        const { runId, keys } = await w.parkApprovedByAna(2);
        // Another kernel on the same store, swept by hand, its clock moved by the test.
        let ahead = 0;
        const store = Object.create(w.d.airlock.store) as Store;
        store.now = () => w.d.airlock.store.now() + ahead;
        other = new Kernel({ store, settleRescanMs: 60_000 });
        await other.sweep();

        // The put of a kernel that stopped at once: written, never settled.
        await w.writeUnsettled(w.rule(1));
        await other.sweep();
        expect(await w.states(runId)).toEqual(['needs_approval', 'needs_approval']);

        ahead = 61_000;
        await other.sweep();
        expect(await w.states(runId)).toEqual(['runnable', 'runnable']);
        const approved = await w.approvedEvents(runId);
        expect(approved.map((event) => event.task_key).sort()).toEqual([...keys].sort());
      }, 60_000);
    },
  );
}
