import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type Deployment, sharedKernels } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const all = await backends();

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `approval policy replacements at the same moment (${backend.name})`,
    () => {
      let d: Deployment;
      const kernels = sharedKernels();
      afterAll(() => kernels.close());
      afterEach(async () => {
        await d?.close();
      });
      const path = () => `${d.ws}/approval_policy`;
      // Two different valid policies: with and without the rule against approving one's own call.
      const policy = (variant: number) => (variant === 1 ? {} : { no_self_approval: true });

      it('of two made from the same version, takes one and refuses the other with stale_digest', async () => {
        d = await kernels.deploy(backend);
        expect((await d.member.put(path(), { policy: policy(1) })).body.version).toBe(1);
        const answers = await Promise.all(
          [1, 2].map((variant) =>
            d.member.put(path(), { policy: policy(variant), expected_version: 1 }),
          ),
        );
        expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
        const taken = answers.find((answer) => answer.status === 200)!.body;
        expect(taken.version).toBe(2);
        expect((await d.member.get(path())).body).toMatchObject({
          version: 2,
          policy: taken.policy,
        });
      });

      it('gives two replacements without a version each a version of its own', async () => {
        d = await kernels.deploy(backend);
        const answers = await Promise.all(
          [1, 2, 1].map((variant) => d.member.put(path(), { policy: policy(variant) })),
        );
        expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
        expect(answers.map((answer) => answer.body.version).sort()).toEqual([1, 2, 3]);
        expect((await d.member.get(path())).body.version).toBe(3);
      });
    },
  );
}
