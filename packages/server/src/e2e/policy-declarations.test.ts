import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type Deployment, sharedKernels } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const sqlite = (await backends()).filter((backend) => backend.name === 'sqlite');
const PROFILE = '/agent_api/v1/profile/configuration';
const contract = (version: number, forbidden: string) => ({
  contract_version: version,
  authorization: { forbidden: [forbidden] },
});

for (const backend of sqlite) {
  describe.skipIf(backend.skip !== null)(
    `policy declarations that would lie (${backend.name})`,
    () => {
      let d: Deployment;
      const kernels = sharedKernels();
      afterAll(() => kernels.close());
      afterEach(async () => {
        await d?.close();
      });

      it('refuses a custom rule set named like a built-in, and two custom sets with one id', async () => {
        d = await kernels.deploy(backend);
        const shadow = await d.agent.put(PROFILE, {
          approval_mode: 'bypass',
          permission_rule_set: 'autonomous',
          custom_rule_sets: [{ id: 'autonomous', rules: [{ verdict: 'deny' }] }],
        });
        expect(shadow.status).toBe(422);
        expect(shadow.body.error.problems).toEqual([
          expect.objectContaining({ pointer: '/custom_rule_sets/0/id', code: 'rule_set_invalid' }),
        ]);
        const twice = await d.agent.put(PROFILE, {
          approval_mode: 'bypass',
          permission_rule_set: 'mine',
          custom_rule_sets: [
            { id: 'mine', rules: [{ verdict: 'allow' }] },
            { id: 'other', rules: [] },
            { id: 'mine', rules: [{ verdict: 'deny' }] },
          ],
        });
        expect(twice.status).toBe(422);
        expect(twice.body.error.problems.map((p: { pointer: string }) => p.pointer)).toEqual([
          '/custom_rule_sets/2/id',
        ]);
        const run = await d.agent.post(`${d.ws}/runs`, {
          approval_mode: 'bypass',
          input: 'x',
          provider: { kind: 'scripted', rounds: [{ final: 'x' }] },
          permission_rule_set: 'read_only',
          custom_rule_sets: [{ id: 'read_only', rules: [] }],
        });
        expect(run.status).toBe(422);
        expect((await d.agent.get(PROFILE)).body).toBeNull();
      });

      it('keeps the contract version floor across a profile without a contract', async () => {
        d = await kernels.deploy(backend);
        const put = (body: object) => d.agent.put(PROFILE, { approval_mode: 'bypass', ...body });
        expect((await put({ action_contract: contract(5, 'action:delete') })).status).toBe(200);
        expect((await put({})).status).toBe(200);
        const reset = await put({ action_contract: contract(1, 'action:publish') });
        expect(reset.status).toBe(409);
        expect(reset.body.error.code).toBe('contract_version_not_higher');
        expect(reset.body.error.detail).toContain('publish 6 or higher');
        // Republishing the latest contract is no change; a higher version is.
        expect((await put({ action_contract: contract(5, 'action:delete') })).status).toBe(200);
        expect((await put({ action_contract: contract(6, 'action:publish') })).status).toBe(200);
        expect((await d.agent.get(PROFILE)).body.version).toBe(4);
      });
    },
  );
}
