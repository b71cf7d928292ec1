import { afterEach, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const all = await backends();

/** How far this kernel's clock runs ahead of the test's. */
const AHEAD_MS = 60_000;

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `claims and heartbeats answer the lease granted (${backend.name})`,
    () => {
      let d: Deployment;
      afterEach(async () => {
        await d?.close();
      });

      it('as a length beside lease_until, which is on the kernel clock', async () => {
        d = await deploy(backend, { clock: () => Date.now() + AHEAD_MS, defaultLeaseMs: 20_000 });
        const runId = (
          await d.agent.post(`${d.ws}/runs`, {
            approval_mode: 'bypass',
            input: 'build it',
            provider: {
              kind: 'scripted',
              rounds: [{ tool_calls: [{ name: 'build' }, { name: 'test' }] }, { final: 'built' }],
            },
          })
        ).body.id;
        const before = Date.now();
        const claim = await d.executor.post(`/executor_api/v1/runs/${runId}/tasks/t1/claim`, {
          lease_ms: 30_000,
        });
        expect(claim.status).toBe(200);
        expect(claim.body.lease_ms).toBe(30_000);
        // lease_until reads a minute late on the test's clock; lease_ms does not depend on it.
        const grantedAt = claim.body.lease_until - claim.body.lease_ms;
        expect(grantedAt).toBeGreaterThanOrEqual(before + AHEAD_MS);
        expect(grantedAt).toBeLessThanOrEqual(Date.now() + AHEAD_MS);

        const beat = await d.executor.post(`/executor_api/v1/runs/${runId}/tasks/t1/heartbeat`, {
          claim_id: claim.body.claim_id,
          lease_ms: 5000,
        });
        expect(beat.status).toBe(200);
        expect(beat.body.lease_ms).toBe(5000);
        expect(beat.body.lease_until - beat.body.lease_ms).toBeGreaterThanOrEqual(grantedAt);

        const next = await d.executor.post('/executor_api/v1/claim', { tool_names: ['test'] });
        expect(next.body.claim).toMatchObject({ lease_ms: 20_000, task: { key: 't2' } });
      });
    },
  );
}
