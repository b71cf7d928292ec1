import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gated } from '../testing/gated-store.js';
import { runOfCalls } from '../testing/harness.js';
import { type SettleWorkspace, settleWorkspace } from '../testing/settle-workspace.js';
import { backends } from '../testing/stores.js';
import { Kernel } from './kernel.js';

const all = await backends();

/*
 * One failed unit of the clocks sweep (a store error at its commit) ended the whole sweep: the
 * rows due after it in that clock, every clock after it and the policy settle all waited, and
 * a row whose unit kept failing held them every sweep. Each unit and each clock goes on past a
 * failure now, and the settle runs whatever the clocks did.
 */
for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `a clocks sweep whose unit fails (${backend.name})`,
    () => {
      let w: SettleWorkspace;
      let other: Kernel | undefined;
      let offset = 0;
      beforeAll(async () => {
        w = await settleWorkspace(backend, { clock: () => Date.now() + offset });
      });
      afterAll(async () => {
        await other?.stop();
        await w?.d.close();
      });

      it('lapses the other leases and settles the met call in the same sweep', async () => {
        const { d } = w;
        expect((await w.put(w.rule(2))).status).toBe(200);
        const parked = await w.parkApprovedByAna(1);
        const granted = await runOfCalls(d, {
          mode: 'bypass',
          tool: 'fetch',
          count: 2,
          state: 'runnable',
        });
        for (const key of ['t1', 't2']) {
          const claimed = await d.executor.post(
            `/executor_api/v1/runs/${granted}/tasks/${key}/claim`,
            {},
          );
          expect(claimed.status).toBe(200);
        }
        // From here the test sweeps by hand, with a kernel whose first unit of a sweep fails.
        await d.airlock.kernel.stop();
        await w.writeUnsettled(w.rule(1));
        offset += 10 * 60 * 1000;
        let units = 0;
        const failingFirst = gated(d.airlock.store, {
          inside: async () => {
            units += 1;
            if (units === 1) throw new Error('the store went away at the commit');
          },
        });
        other = new Kernel({ store: failingFirst });
        await other.sweep();

        // The first lapse failed; the other lapsed, and the met call was approved.
        expect(await w.states(granted)).toEqual(['claimed', 'runnable']);
        expect(await w.states(parked.runId)).toEqual(['runnable']);
        expect(await w.approvedEvents(parked.runId)).toHaveLength(1);
      }, 60_000);
    },
  );
}
