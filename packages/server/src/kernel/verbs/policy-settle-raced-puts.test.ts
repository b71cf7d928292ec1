import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SettleWorkspace, settleWorkspace } from '../../testing/settle-workspace.js';
import { backends } from '../../testing/stores.js';
import { settleMetQuorums } from './policy-settle.js';

const all = await backends();

/*
 * Two puts racing: the first's settle runs after the second committed, and reads the second's
 * policy. A call it approves is approved by that policy, and its task.approved says so (it
 * named the first put's version, whose policy no longer applied).
 */
for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `a policy settle that runs after a later put (${backend.name})`,
    () => {
      let w: SettleWorkspace;
      beforeAll(async () => {
        w = await settleWorkspace(backend);
      });
      afterAll(async () => {
        await w?.d.close();
      });

      it('names the version that approved the call', async () => {
        expect((await w.put(w.rule(2))).status).toBe(200);
        const { runId, keys } = await w.parkApprovedByAna(1);
        // The first put lowers the quorum, the second names Ana alone; the first's settle
        // runs after both committed.
        const first = await w.writeUnsettled(w.rule(1));
        const second = await w.writeUnsettled(w.rule(1, [w.ana.id]));
        const settled = await settleMetQuorums(w.d.airlock.kernel.context, {
          workspaceId: w.d.workspaceId,
          policyVersion: first,
        });
        expect(settled).toEqual([{ run_id: runId, task_key: keys[0] }]);
        const approved = await w.approvedEvents(runId);
        expect(approved).toHaveLength(1);
        expect(approved[0]!.data.via).toBe(`approval policy version ${second}`);
      }, 60_000);
    },
  );
}
