import { afterEach, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

/** A moment on the kernel's clock, which stands still: every change lands in the same millisecond. */
const STILL = Date.parse('2026-12-06T12:00:00Z');

for (const backend of await backends()) {
  describe.skipIf(backend.skip !== null)(
    `retention changes in one millisecond (${backend.name})`,
    () => {
      let d: Deployment;
      afterEach(async () => {
        await d?.close();
      });

      it('each get an updated_at of their own, so a change made from an older read is refused', async () => {
        d = await deploy(backend, { clock: () => STILL });
        const path = `${d.ws}/retention`;
        const first = await d.member.put(path, {
          events_days: 90,
          runs_days: 90,
          audit_days: 365,
          expected_updated_at: null,
        });
        expect(first.status).toBe(200);
        const read = first.body.updated_at as number;
        const second = await d.member.put(path, {
          events_days: 90,
          runs_days: 30,
          audit_days: 365,
          expected_updated_at: read,
        });
        expect(second.status).toBe(200);
        expect(second.body.updated_at).toBeGreaterThan(read);
        // Made from the first read, which the second change has overtaken.
        const stale = await d.member.put(path, {
          events_days: 7,
          runs_days: 90,
          audit_days: 365,
          expected_updated_at: read,
        });
        expect(stale.status).toBe(409);
        expect(stale.body.error.code).toBe('stale_digest');
        expect((await d.member.get(path)).body).toMatchObject({ events_days: 90, runs_days: 30 });
      });
    },
  );
}
