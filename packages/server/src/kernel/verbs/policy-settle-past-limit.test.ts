import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../testing/harness.js';
import { type SettleWorkspace, settleWorkspace } from '../../testing/settle-workspace.js';
import { backends } from '../../testing/stores.js';
import { POLICY_SETTLE_LIMIT } from './policy-settle.js';

const all = await backends();

/*
 * A put approves the first POLICY_SETTLE_LIMIT calls its policy met before it answers; the
 * calls past them used to wait for an approval nobody could give (each allowed member had given
 * theirs) and expired at their deadline. The kernel's sweep approves them now, each once.
 */
for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `calls a policy put meets past the put's own limit (${backend.name})`,
    () => {
      let w: SettleWorkspace;
      beforeAll(async () => {
        w = await settleWorkspace(backend);
      });
      afterAll(async () => {
        await w?.d.close();
      });

      it('are approved by the sweep after the put answers, each once', async () => {
        expect((await w.put(w.rule(2))).status).toBe(200);
        // 64 calls a round at most: 8 runs hold 512 waiting calls, 12 past the limit.
        const runs: string[] = [];
        let rows = 0;
        for (let run = 0; run < 8; run += 1) {
          const parked = await w.parkApprovedByAna(64);
          runs.push(parked.runId);
          rows += parked.rows.length;
        }
        expect(rows).toBeGreaterThan(POLICY_SETTLE_LIMIT);

        const lowered = await w.put(w.rule(1));
        expect(lowered.status).toBe(200);
        expect(lowered.body.approved_calls).toHaveLength(POLICY_SETTLE_LIMIT);
        const waiting = async () => {
          let left = 0;
          for (const runId of runs) {
            left += (await w.states(runId)).filter((state) => state === 'needs_approval').length;
          }
          return left;
        };
        await waitFor(async () => (await waiting()) === 0, {
          timeoutMs: 60_000,
          what: 'every met call past the limit to be approved',
        });
        for (const runId of runs) expect(await w.approvedEvents(runId)).toHaveLength(64);
      }, 300_000);
    },
  );
}
