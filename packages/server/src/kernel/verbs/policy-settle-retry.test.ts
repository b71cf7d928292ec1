import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatedContext } from '../../testing/gated-store.js';
import { waitFor } from '../../testing/harness.js';
import { type SettleWorkspace, settleWorkspace } from '../../testing/settle-workspace.js';
import { backends } from '../../testing/stores.js';
import { settleMetQuorums } from './policy-settle.js';

const all = await backends();

/*
 * A call whose settling unit failed (a store error at its commit) was left waiting for good,
 * and before that the first failure stopped the whole pass: every later met call waited too.
 * The pass goes on past it, and the kernel's sweep settles the failed one again.
 */
for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `a met call whose settling unit failed (${backend.name})`,
    // The backends' kernels side by side: the case waits out the sweep's first retry (1 s).
    { concurrent: true },
    () => {
      let w: SettleWorkspace;
      beforeAll(async () => {
        w = await settleWorkspace(backend);
      });
      afterAll(async () => {
        await w?.d.close();
      });

      it('is settled again by the sweep, and the calls after it at once', async () => {
        const { d } = w;
        expect((await w.put(w.rule(2))).status).toBe(200);
        const { runId, keys } = await w.parkApprovedByAna(3);
        const version = await w.writeUnsettled(w.rule(1));
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
        const approved = await w.approvedEvents(runId);
        expect(approved.map((event) => event.task_key).sort()).toEqual([...keys].sort());
      }, 60_000);
    },
  );
}
