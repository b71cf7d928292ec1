import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type Deployment, sharedKernels } from '../testing/harness.js';
import { runOperatorCli } from '../testing/operator-cli.js';
import { backends } from '../testing/stores.js';

const all = await backends();

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `a retention change made from a read (${backend.name})`,
    () => {
      let d: Deployment;
      const kernels = sharedKernels();
      afterAll(() => kernels.close());
      afterEach(async () => {
        await d?.close();
      });

      it('is refused with 409 stale_digest when the policy changed since the read, changing nothing', async () => {
        d = await kernels.deploy(backend);
        const path = `${d.ws}/retention`;
        // Nothing set yet: null is what the caller read.
        const first = await d.member.put(path, {
          events_days: 90,
          runs_days: 90,
          audit_days: 365,
          expected_updated_at: null,
        });
        expect(first.status).toBe(200);
        const read = first.body.updated_at as number;
        // Another member's change lands after that read.
        const again = await d.member.put(path, {
          events_days: 90,
          runs_days: 30,
          audit_days: 365,
          expected_updated_at: null,
        });
        expect(again.status).toBe(409);
        expect(again.body.error.code).toBe('stale_digest');
        await new Promise((settle) => setTimeout(settle, 5));
        expect(
          (await d.member.put(path, { events_days: 90, runs_days: 30, audit_days: 365 })).status,
        ).toBe(200);
        const stale = await d.member.put(path, {
          events_days: 7,
          runs_days: 90,
          audit_days: 365,
          expected_updated_at: read,
        });
        expect(stale.status).toBe(409);
        expect(stale.body.error.code).toBe('stale_digest');
        expect(stale.body.error.detail).toMatch(/read it again$/);
        expect((await d.member.get(path)).body).toMatchObject({
          events_days: 90,
          runs_days: 30,
          audit_days: 365,
        });
      });

      it('of two made from the same read, takes one and refuses the other', async () => {
        d = await kernels.deploy(backend);
        const path = `${d.ws}/retention`;
        const read = (await d.member.put(path, { events_days: 90, runs_days: 90, audit_days: 365 }))
          .body.updated_at as number;
        await new Promise((settle) => setTimeout(settle, 5));
        const answers = await Promise.all(
          [7, 14].map((events_days) =>
            d.member.put(path, {
              events_days,
              runs_days: 90,
              audit_days: 365,
              expected_updated_at: read,
            }),
          ),
        );
        expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
        const taken = answers.find((answer) => answer.status === 200)!.body.events_days;
        expect((await d.member.get(path)).body.events_days).toBe(taken);
      });

      it('through airlock retention set keeps the windows it does not name, as they are now', async () => {
        d = await kernels.deploy(backend);
        const path = `${d.ws}/retention`;
        expect(
          (await d.member.put(path, { events_days: 90, runs_days: 90, audit_days: 365 })).status,
        ).toBe(200);
        const set = await runOperatorCli(d, ['retention', 'set', '--runs', '30']);
        expect(set.code, set.stderr).toBe(0);
        expect((await d.member.get(path)).body).toMatchObject({
          events_days: 90,
          runs_days: 30,
          audit_days: 365,
        });
      });
    },
  );
}
