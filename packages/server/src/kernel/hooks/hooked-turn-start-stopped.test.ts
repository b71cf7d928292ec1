import { afterEach, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from '../../testing/harness.js';
import { postHookEvent } from '../../testing/hooked-events.js';
import { backends } from '../../testing/stores.js';

/**
 * A prompt's hook waits on the turn's `turn_start` hook and asks again by
 * its task key. When a member stops the turn meanwhile, the prompt is
 * refused from that turn: no new turn opens for it, and it never passes
 * without the hook's decision.
 */

const all = await backends();

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `a prompt whose turn was stopped (${backend.name})`,
    () => {
      let d: Deployment;
      afterEach(async () => {
        await d?.close();
      });

      it('is refused from its own turn, and no other turn opens', async () => {
        d = await deploy(backend);
        await d.agent.put('/agent_api/v1/profile/configuration', {
          approval_mode: 'rules',
          approval_rules: [{ tool: 'check_turn', verdict: 'allow', origin: 'kernel' }],
          lifecycle_hooks: { turn_start: { tool: 'check_turn', timeout_ms: 60_000 } },
        });
        const prompt = { event: 'turn_start', text: 'deploy it' };
        const turn = await postHookEvent(d, prompt);
        expect(turn.body).toMatchObject({ verdict: 'wait', task_key: 't1' });
        const runId = turn.body.run_id as string;
        expect((await d.member.post(`${d.ws}/runs/${runId}/stop`, {})).status).toBe(200);

        const asked = await postHookEvent(d, { ...prompt, task_key: 't1' });
        expect(asked.status).toBe(200);
        expect(asked.body).toMatchObject({ verdict: 'deny', run_id: runId, task_key: 't1' });
        expect(asked.body.reason).toContain('stopped');
        const runs = (await d.member.get(`${d.ws}/runs`)).body.runs as { id: string }[];
        expect(runs.map((run) => run.id)).toEqual([runId]);
      });
    },
  );
}
