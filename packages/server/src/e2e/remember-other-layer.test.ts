import { afterEach, describe, expect, it } from 'vitest';
import { type Deployment, deploy, waitFor } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const all = await backends();

/*
 * A remembered rule joins the rule set's overlays, one layer of the stage: where another layer
 * parked the call (the declared approval rules under mode ask, here) it could not keep the next
 * identical call from parking, so remember is refused and nothing changes.
 */
for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `remember of a call another layer parked (${backend.name})`,
    () => {
      let d: Deployment;
      afterEach(async () => {
        await d?.close();
      });

      async function parkedTurn(conversation: string): Promise<string> {
        const started = await d.agent.post(`/agent_api/v1/conversations/${conversation}/inputs`, {
          input: 'look it up',
          provider: {
            kind: 'scripted',
            rounds: [{ tool_calls: [{ name: 'lookup', input: { q: 'x' } }] }, { final: 'done' }],
          },
        });
        expect(started.status).toBe(201);
        const runId = started.body.id as string;
        await waitFor(
          async () =>
            (await d.member.get(`${d.ws}/runs/${runId}/tasks/t1`)).body.state === 'needs_approval',
        );
        return runId;
      }

      it('refuses remember when the declared rules parked a call the rule set allows, and changes nothing', async () => {
        d = await deploy(backend);
        const put = await d.agent.put('/agent_api/v1/profile/configuration', {
          approval_mode: 'ask',
          permission_rule_set: 'autonomous',
          project_root: '/repo',
          tool_manifest: [
            { name: 'lookup', input_schema: { type: 'object' }, risk_traits: ['read'] },
          ],
        });
        expect(put.status).toBe(200);
        const conversation = (await d.agent.post('/agent_api/v1/conversations')).body.id as string;
        const overlay = `${d.ws}/overlays/conversation/${conversation}`;
        const read = await d.member.get(overlay);
        expect(read.status).toBe(200);
        const before = read.body;
        const runId = await parkedTurn(conversation);
        const task = `${d.ws}/runs/${runId}/tasks/t1`;

        const refused = await d.member.post(`${task}/approve`, {
          remember: { scope: 'conversation' },
        });
        expect(refused.status).toBe(422);
        expect(refused.body.error.code).toBe('remember_unavailable');
        expect(refused.body.error.detail).toContain('declared approval rules');
        expect((await d.member.get(task)).body.state).toBe('needs_approval');
        expect((await d.member.get(overlay)).body).toEqual(before);

        const approved = await d.member.post(`${task}/approve`, {});
        expect(approved.status).toBe(200);
        expect(approved.body.state).toBe('runnable');
      });
    },
  );
}
