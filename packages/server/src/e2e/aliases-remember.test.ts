import { afterEach, describe, expect, it } from 'vitest';
import { type Deployment, deploy, waitFor } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const all = await backends();

/*
 * A remembered grant is an allow of the call's resolved name. A call the run aliased, parked
 * by a rule naming the name the model called, would park again however many allows of the
 * resolved name an overlay keeps, so remembering it is refused like a Baseline park.
 */
for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`remembering an aliased call (${backend.name})`, () => {
    let d: Deployment;
    afterEach(async () => {
      await d?.close();
    });

    async function conversationTurn(name: string) {
      const started = await d.agent.post(`/agent_api/v1/conversations/${conversation}/inputs`, {
        input: 'go',
        provider: {
          kind: 'scripted',
          rounds: [{ tool_calls: [{ name, input: { to: 'prod' } }] }, { final: 'done' }],
        },
      });
      expect(started.status).toBe(201);
      const runId = started.body.id as string;
      const row = await waitFor(async () => {
        const read = (await d.member.get(`${d.ws}/runs/${runId}/tasks/t1`)).body;
        return read.state !== 'ready' ? read : null;
      });
      return { row, task: `${d.ws}/runs/${runId}/tasks/t1` };
    }
    let conversation = '';

    it('is refused when a rule naming the called name parked it, and nothing is kept', async () => {
      d = await deploy(backend);
      const put = await d.agent.put('/agent_api/v1/profile/configuration', {
        approval_mode: 'bypass',
        tool_aliases: { deploy: 'noop' },
        permission_rule_set: 'house',
        custom_rule_sets: [
          {
            id: 'house',
            rules: [{ verdict: 'ask', tool_names: ['deploy', 'ship'] }, { verdict: 'ask' }],
          },
        ],
      });
      expect(put.status).toBe(200);
      conversation = (await d.agent.post('/agent_api/v1/conversations')).body.id as string;
      const overlay = `${d.ws}/overlays/conversation/${conversation}`;
      const before = (await d.member.get(overlay)).body.digest;
      const aliased = await conversationTurn('deploy');
      expect(aliased.row.state).toBe('needs_approval');
      const refused = await d.member.post(`${aliased.task}/approve`, {
        remember: { scope: 'conversation' },
      });
      expect(refused.status).toBe(422);
      expect(refused.body.error.code).toBe('remember_unavailable');
      expect((await d.member.get(aliased.task)).body.state).toBe('needs_approval');
      expect((await d.member.get(overlay)).body.digest).toBe(before);
      // A rule to remember that names the called name lifts the park, and is kept.
      const named = await d.member.post(`${aliased.task}/approve`, {
        remember: { scope: 'conversation', rule: { tool_names: ['deploy', 'noop'] } },
      });
      expect(named.status).toBe(200);
      expect((await conversationTurn('deploy')).row.state).toBe('runnable');
      // A call the set's catch-all parked under its resolved name is remembered as before.
      const plain = await conversationTurn('ship');
      expect(plain.row.state).toBe('needs_approval');
      const kept = await d.member.post(`${plain.task}/approve`, {
        remember: { scope: 'conversation' },
      });
      expect(kept.status).toBe(200);
      expect((await conversationTurn('ship')).row.state).toBe('runnable');
    });
  });
}
