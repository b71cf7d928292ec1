import { afterEach, describe, expect, it } from 'vitest';
import { type Deployment, deploy, waitFor } from '../../testing/harness.js';
import { endedRun } from '../../testing/retention-runs.js';
import { backends } from '../../testing/stores.js';

const DAY = 24 * 60 * 60 * 1000;

for (const backend of await backends()) {
  describe.skipIf(backend.skip !== null)(
    `pruning after the clock was set back (${backend.name})`,
    () => {
      let d: Deployment | undefined;
      afterEach(async () => {
        await d?.close();
        d = undefined;
      });

      it('goes on at its interval once a clock that ran ahead is put right', async () => {
        // A machine that booted with its clock a year ahead (a bad RTC), and NTP then put it right.
        let now = Date.now() + 400 * DAY;
        d = await deploy(backend, { clock: () => now, retention: { intervalMs: 60_000 } });
        const deployment = d;
        // A pass ran while the clock was ahead.
        await deployment.airlock.kernel.pruner!.pruneNow();
        now = Date.now();
        const put = await deployment.member.put(`${deployment.ws}/retention`, {
          events_days: null,
          runs_days: 1,
          audit_days: null,
        });
        expect(put.status).toBe(200);
        const runId = await endedRun(deployment);
        now += 2 * DAY;
        // The kernel's clock sweep (every 50 ms here) starts the passes: the run is past its window.
        await waitFor(
          async () =>
            (await deployment.member.get(`${deployment.ws}/runs/${runId}`)).status === 404,
          { timeoutMs: 20_000, what: 'the ended run to be pruned' },
        );
      });
    },
  );
}
