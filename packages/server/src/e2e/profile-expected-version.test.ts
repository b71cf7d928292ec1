import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type Deployment, sharedKernels } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const all = await backends();
const PROFILE = '/agent_api/v1/profile/configuration';

/*
 * Two writers that read the same profile version (two MCP bridges of one
 * agent, say) each write the whole configuration: without a version to hold
 * the second to, it silently drops what the first added.
 */
for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `a profile put with expected_version (${backend.name})`,
    () => {
      let d: Deployment;
      const kernels = sharedKernels();
      afterAll(() => kernels.close());
      afterEach(async () => {
        await d?.close();
      });

      it('of two made from the same version, takes one and refuses the other with stale_digest', async () => {
        d = await kernels.deploy(backend);
        expect((await d.agent.put(PROFILE, { approval_mode: 'ask' })).body.version).toBe(1);
        const answers = await Promise.all(
          ['alpha__t', 'beta__t'].map((name) =>
            d.agent.put(PROFILE, { approval_mode: 'ask', tool_names: [name], expected_version: 1 }),
          ),
        );
        expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
        const refused = answers.find((answer) => answer.status === 409)!.body;
        expect(refused.error.code).toBe('stale_digest');
        expect(refused.error.detail).toMatch(/version 2, not 1/);
        const taken = answers.find((answer) => answer.status === 200)!.body;
        expect(taken.version).toBe(2);
        // What is stored and answered is the configuration alone, without the version asked for.
        expect(taken.configuration).not.toHaveProperty('expected_version');
        expect((await d.agent.get(PROFILE)).body).toMatchObject({
          version: 2,
          configuration: taken.configuration,
        });
      });

      it('takes expected_version 0 only before the first declaration', async () => {
        d = await kernels.deploy(backend);
        const first = await d.agent.put(PROFILE, { approval_mode: 'ask', expected_version: 0 });
        expect(first.status).toBe(200);
        expect(first.body).toMatchObject({ version: 1, configuration: { approval_mode: 'ask' } });
        const again = await d.agent.put(PROFILE, { approval_mode: 'bypass', expected_version: 0 });
        expect(again.status).toBe(409);
        expect(again.body.error.code).toBe('stale_digest');
        expect((await d.agent.get(PROFILE)).body).toMatchObject({
          version: 1,
          configuration: { approval_mode: 'ask' },
        });
      });

      it('refuses an expected_version that is not a whole number, changing nothing', async () => {
        d = await kernels.deploy(backend);
        await d.agent.put(PROFILE, { approval_mode: 'ask' });
        for (const expected_version of [-1, 1.5, '1', null]) {
          const answer = await d.agent.put(PROFILE, { approval_mode: 'bypass', expected_version });
          expect(answer.status).toBe(400);
          expect(answer.body.error.code).toBe('invalid_input');
        }
        expect((await d.agent.get(PROFILE)).body).toMatchObject({
          version: 1,
          configuration: { approval_mode: 'ask' },
        });
      });

      it('refuses a version past any the store holds with stale_digest, not an internal error', async () => {
        d = await kernels.deploy(backend);
        await d.agent.put(PROFILE, { approval_mode: 'ask' });
        for (const expected_version of [3_000_000_000, Number.MAX_SAFE_INTEGER]) {
          const answer = await d.agent.put(PROFILE, { approval_mode: 'bypass', expected_version });
          expect(answer.status).toBe(409);
          expect(answer.body.error.code).toBe('stale_digest');
        }
        expect((await d.agent.get(PROFILE)).body).toMatchObject({
          version: 1,
          configuration: { approval_mode: 'ask' },
        });
      });

      it('still gives a put without expected_version a version of its own', async () => {
        d = await kernels.deploy(backend);
        const answers = await Promise.all(
          ['ask', 'bypass', 'ask'].map((mode) => d.agent.put(PROFILE, { approval_mode: mode })),
        );
        expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
        expect(answers.map((answer) => answer.body.version).sort()).toEqual([1, 2, 3]);
      });
    },
  );
}
