import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  type Deployment,
  leadsAndOutsider,
  putOverlay,
  sharedKernels,
  waitFor,
} from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const all = await backends();

/*
 * A run's tool_aliases map the name the model called to the name the rules resolve, while an
 * executor serves the called name. Every policy layer decides an aliased call so that a deny or
 * an ask naming either name applies (the strictest word wins), and an allow of the resolved name
 * still grants it.
 */
const NOOP_MANIFEST = [{ name: 'noop', input_schema: { type: 'object' }, risk_traits: ['read'] }];

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `aliased calls and the policy layers (${backend.name})`,
    () => {
      let d: Deployment;
      const kernels = sharedKernels();
      afterAll(() => kernels.close());
      afterEach(async () => {
        await d?.close();
      });

      /** A standalone agent run whose model calls `name`, aliased to `noop`; its first row once decided. */
      async function aliasedCall(configuration: Record<string, unknown>, name = 'deploy') {
        const created = await d.agent.post(`${d.ws}/runs`, {
          approval_mode: 'bypass',
          tool_aliases: { deploy: 'noop' },
          input: 'ship it',
          provider: {
            kind: 'scripted',
            rounds: [{ tool_calls: [{ name, input: { to: 'prod' } }] }, { final: 'done' }],
          },
          ...configuration,
        });
        expect(created.status).toBe(201);
        const runId = created.body.id as string;
        return waitFor(async () => {
          const read = (await d.member.get(`${d.ws}/runs/${runId}/tasks/t1`)).body;
          return read.state !== 'ready' ? read : null;
        });
      }

      /** Puts and trusts the agent application's project overlay document. */
      async function trustedProjectOverlay(groups: unknown) {
        const path = `${d.ws}/overlays/project/${d.appId}`;
        const put = await putOverlay(d.member, path, groups);
        expect(put.status).toBe(200);
        const trusted = await d.member.post(`${path}/trust`, { digest: put.body.digest });
        expect(trusted.body.active).toBe(true);
      }

      it("a project overlay's deny on the called name refuses the aliased call", async () => {
        d = await kernels.deploy(backend);
        await trustedProjectOverlay([
          {
            ruleSetId: 'autonomous',
            rules: [{ verdict: 'deny', tools: ['deploy'], reason: 'no deploys from here' }],
          },
        ]);
        const row = await aliasedCall({ permission_rule_set: 'autonomous' });
        expect(row).toMatchObject({
          state: 'failed',
          error: { code: 'approval_denied', detail: 'no deploys from here' },
          decision: { layer: 'rule_set' },
        });
      });

      it("a rule set's ask on the called name parks the aliased call; its allow of the resolved name stands", async () => {
        d = await kernels.deploy(backend);
        const custom = {
          id: 'house',
          rules: [
            { verdict: 'ask', tool_names: ['deploy'], reason: 'deploys need a person' },
            { verdict: 'allow' },
          ],
        };
        const config = { permission_rule_set: 'house', custom_rule_sets: [custom] };
        expect(await aliasedCall(config)).toMatchObject({ state: 'needs_approval' });
        d.close();
        d = await kernels.deploy(backend);
        // Supervised asks for anything beyond inspection: the manifest's noop inspects, so the
        // called name, which no rule names, does not make the call ask.
        const supervised = { permission_rule_set: 'supervised', tool_manifest: NOOP_MANIFEST };
        expect(await aliasedCall(supervised)).toMatchObject({ state: 'runnable' });
      });

      it("an action contract's forbidden tool:<called name> refuses the aliased call", async () => {
        d = await kernels.deploy(backend);
        const row = await aliasedCall({
          action_contract: { contract_version: 1, authorization: { forbidden: ['tool:deploy'] } },
        });
        expect(row).toMatchObject({
          state: 'failed',
          error: { code: 'approval_denied' },
          decision: { layer: 'action_contract' },
        });
      });

      it('a declared deny or ask rule on the called name applies; an allow of the resolved name grants', async () => {
        d = await kernels.deploy(backend);
        const denied = await aliasedCall({
          approval_rules: [{ tool: 'deploy', verdict: 'deny', reason: 'never deploy' }],
        });
        expect(denied).toMatchObject({
          state: 'failed',
          error: { code: 'approval_denied', detail: 'never deploy' },
          decision: { matched: [0], tool_name: 'noop' },
        });
        const asked = await aliasedCall({
          approval_mode: 'rules',
          approval_rules: [
            { tool: 'noop', verdict: 'allow' },
            { tool: 'deploy', verdict: 'ask' },
          ],
        });
        expect(asked).toMatchObject({ state: 'needs_approval', decision: { matched: [0, 1] } });
        const granted = await aliasedCall({
          approval_mode: 'rules',
          approval_rules: [{ tool: 'noop', verdict: 'allow' }],
        });
        expect(granted).toMatchObject({ state: 'runnable', decision: { granted_by: 'rule' } });
      });

      it('a runner-qualified call is read under its served name before the alias', async () => {
        d = await kernels.deploy(backend);
        const put = await putOverlay(d.member, `${d.ws}/overlays/user/me`, [
          {
            ruleSetId: 'supervised',
            rules: [{ verdict: 'deny', guardrail: true, tools: ['deploy'], reason: 'no deploys' }],
          },
        ]);
        expect(put.status).toBe(200);
        const row = await aliasedCall({}, 'deploy__0123456789ab');
        expect(row).toMatchObject({
          state: 'failed',
          error: { code: 'approval_denied', detail: 'no deploys' },
        });
        const rules = await aliasedCall(
          { approval_rules: [{ tool: 'deploy', verdict: 'deny' }] },
          'deploy__0123456789ab',
        );
        expect(rules).toMatchObject({ state: 'failed', error: { code: 'approval_denied' } });
      });

      it('the approval policy reads a runner-qualified aliased call under its served name', async () => {
        d = await kernels.deploy(backend);
        const { lead1, cy } = await leadsAndOutsider(d, {
          rules: [{ tool: 'deploy', approvers: ['group:leads'] }],
        });
        const row = await aliasedCall({ approval_mode: 'ask' }, 'deploy__0123456789ab');
        expect(row).toMatchObject({ state: 'needs_approval', approvals: { rule_index: 0 } });
        const task = `${d.ws}/runs/${row.run_id}/tasks/t1`;
        const refused = await cy.client.post(`${task}/approve`, {});
        expect(refused.body.error?.code).toBe('approver_not_allowed');
        expect((await lead1.client.post(`${task}/approve`, {})).body.state).toBe('runnable');
      });
    },
  );
}
