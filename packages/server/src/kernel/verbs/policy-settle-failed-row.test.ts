import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store, Tx } from '../../store/store.js';
import { type SettleWorkspace, settleWorkspace } from '../../testing/settle-workspace.js';
import { backends } from '../../testing/stores.js';
import { Kernel } from '../kernel.js';

const all = await backends();

/**
 * The store as a kernel sees it, where the unit that would approve a row of `runId` fails
 * before its COMMIT (rolled back), every time (tests only).
 */
function failingFor(store: Store, runId: () => string): Store {
  const view = Object.create(store) as Store;
  view.transaction = (work) =>
    store.transaction(async (tx) => {
      let approvesIt = false;
      const watched: Tx = {
        ...tx,
        emit: (event) => {
          if (event.run_id === runId() && event.type === 'task.approved') approvesIt = true;
          tx.emit(event);
        },
      };
      const value = await work(watched);
      if (approvesIt) throw new Error('the store went away at the commit');
      return value;
    });
  return view;
}

/*
 * A met call whose settling unit kept failing sent its workspace back to its first row after
 * every page it was on: the met calls on the pages after it (past 200 waiting rows holding
 * approvals) waited for their deadline. The sweep goes on to the next pages first, and looks
 * at the first rows again after a wait.
 */
for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `a met call whose settling keeps failing, on a page before others (${backend.name})`,
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

      const policy = (dropRequired: number) => ({
        rules: [
          { tool: 'wipe', approvers: [w.ana.id, w.bo.id], required: 2 },
          { tool: 'drop', approvers: [w.ana.id, w.bo.id], required: dropRequired },
        ],
      });

      it('does not hold the met calls on the pages after it', async () => {
        const { d } = w;
        expect((await w.put(policy(2))).status).toBe(200);
        // Oldest first: the failing call, 200 calls still short of their quorum, a met call.
        const failing = await w.parkApprovedByAna(1, 'drop');
        for (let run = 0; run < 4; run += 1) await w.parkApprovedByAna(50);
        const later = await w.parkApprovedByAna(1, 'drop');
        // From here the test sweeps by hand, with a kernel whose store fails the first call.
        await d.airlock.kernel.stop();
        await w.writeUnsettled(policy(1));
        let ahead = 0;
        const store = failingFor(d.airlock.store, () => failing.runId);
        store.now = () => d.airlock.store.now() + ahead;
        other = new Kernel({ store });
        // Each sweep a page; the clock moves past any wait before a look from the first row.
        for (let sweep = 0; sweep < 4; sweep += 1) {
          await other.sweep();
          ahead += 10 * 60 * 1000;
        }
        expect(await w.states(later.runId)).toEqual(['runnable']);
        expect(await w.states(failing.runId)).toEqual(['needs_approval']);
        expect(await w.approvedEvents(later.runId)).toHaveLength(1);
      }, 120_000);
    },
  );
}
