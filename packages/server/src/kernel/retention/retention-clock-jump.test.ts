import { afterEach, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from '../../testing/harness.js';
import { endedRun } from '../../testing/retention-runs.js';
import { backends } from '../../testing/stores.js';

const DAY = 24 * 60 * 60 * 1000;

for (const backend of await backends()) {
  describe.skipIf(backend.skip !== null)(
    `pruning after the clock jumped ahead (${backend.name})`,
    () => {
      let d: Deployment | undefined;
      afterEach(async () => {
        await d?.close();
        d = undefined;
      });

      it('prunes by the time that passed, not by a clock set a year ahead', async () => {
        // The machine's clocks: the wall clock (which the store reads too) and a monotonic one.
        let wall = Date.now();
        let monotonic = 0;
        d = await deploy(backend, {
          clock: () => wall,
          // Passes only when the test asks: the clock sweep's would read the clocks in between.
          retention: {
            intervalMs: 1000 * DAY,
            clocks: { wall: () => wall, monotonic: () => monotonic },
          },
        });
        const deployment = d;
        const pruner = deployment.airlock.kernel.pruner!;
        const put = await deployment.member.put(`${deployment.ws}/retention`, {
          events_days: null,
          runs_days: 30,
          audit_days: 30,
        });
        expect(put.status).toBe(200);
        const runId = await endedRun(deployment);
        const run = async () =>
          (await deployment.member.get(`${deployment.ws}/runs/${runId}`)).status;
        wall += DAY;
        monotonic += DAY;
        await pruner.pruneNow();
        expect(await run()).toBe(200);

        // Set a year ahead (by hand, a misconfigured time server) a second later.
        wall += 365 * DAY;
        monotonic += 1000;
        await pruner.pruneNow();
        expect(await run()).toBe(200);

        // Thirty days pass: the run ended 31 days ago, past its window.
        wall += 30 * DAY;
        monotonic += 30 * DAY;
        await pruner.pruneNow();
        expect(await run()).toBe(404);
      });
    },
  );
}
