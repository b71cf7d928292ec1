import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from '../../testing/harness.js';
import { endedRun } from '../../testing/retention-runs.js';
import { backends } from '../../testing/stores.js';
import { RetentionPruner } from './retention.js';

const DAY = 24 * 60 * 60 * 1000;
const root = mkdtempSync(join(tmpdir(), 'airlock-retention-policy-change-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

for (const backend of await backends()) {
  describe.skipIf(backend.skip !== null)(
    `a retention policy changed while a pass prunes (${backend.name})`,
    () => {
      let d: Deployment | undefined;
      afterEach(async () => {
        await d?.close();
        d = undefined;
      });

      /**
       * Ages three ended runs past a 90-day runs window, then prunes them one run a batch,
       * putting `change` as the workspace's policy at the first rest after the first run went.
       * Answers which of the runs are still there.
       */
      async function pruneWhileChanging(change: Record<string, number | null>) {
        let now = Date.now();
        d = await deploy(backend, { clock: () => now });
        const deployment = d;
        await deployment.airlock.kernel.pruner!.stop();
        const runIds = [
          await endedRun(deployment),
          await endedRun(deployment),
          await endedRun(deployment),
        ];
        now += 100 * DAY;
        const put = await deployment.member.put(`${deployment.ws}/retention`, {
          events_days: null,
          runs_days: 90,
          audit_days: null,
        });
        expect(put.status).toBe(200);
        let changed = false;
        const pruner = new RetentionPruner(deployment.airlock.kernel.context, {
          exportDir: mkdtempSync(join(root, 'exports-')),
          intervalMs: 10 * 365 * DAY,
          batchRuns: 1,
          rest: async () => {
            if (changed) return;
            // Changed once the first run went: the pass was pruning, and had more to prune.
            const first = await deployment.member.get(`${deployment.ws}/runs/${runIds[0]}`);
            if (first.status !== 404) return;
            changed = true;
            const again = await deployment.member.put(`${deployment.ws}/retention`, {
              events_days: null,
              audit_days: null,
              ...change,
            });
            expect(again.status).toBe(200);
          },
        });
        await pruner.pruneNow();
        expect(changed).toBe(true);
        const kept: string[] = [];
        for (const runId of runIds) {
          const read = await deployment.member.get(`${deployment.ws}/runs/${runId}`);
          if (read.status === 200) kept.push(runId);
          else expect(read.status).toBe(404);
        }
        return { runIds, kept };
      }

      it('deletes nothing more once an admin set the runs to be kept', async () => {
        const { runIds, kept } = await pruneWhileChanging({ runs_days: null });
        // The first run went before the change; the other two are kept, as the policy now says.
        expect(kept).toEqual(runIds.slice(1));
      });

      it('deletes nothing more under the old window once it was made longer', async () => {
        const { runIds, kept } = await pruneWhileChanging({ runs_days: 365 });
        expect(kept).toEqual(runIds.slice(1));
      });
    },
  );
}
