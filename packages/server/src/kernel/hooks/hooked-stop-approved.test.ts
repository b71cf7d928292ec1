import { afterEach, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from '../../testing/harness.js';
import { bashPostTool, bashPreTool, postHookEvent } from '../../testing/hooked-events.js';
import { backends } from '../../testing/stores.js';

/**
 * A call approved after its hook gave up waits for the agent to make it
 * again. When the agent ends its turn first, the stop is answered (it used to
 * fail with an internal error) and the run stays open, as for a parked call:
 * the next turn's calls cross the stage, and the identical call made later is
 * granted once.
 */

const all = await backends();

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `a stop while an approved call waits for the agent (${backend.name})`,
    () => {
      let d: Deployment;
      afterEach(async () => {
        await d?.close();
      });

      it('is answered, and the turn ends once the call made again is reported', async () => {
        d = await deploy(backend);
        await d.agent.put('/agent_api/v1/profile/configuration', { approval_mode: 'ask' });
        const parked = await postHookEvent(d, bashPreTool('git push origin main', 'tu-1'));
        expect(parked.body).toMatchObject({ verdict: 'wait', task_key: 't1' });
        const runId = parked.body.run_id as string;
        const run = `${d.ws}/runs/${runId}`;
        expect((await d.member.post(`${run}/tasks/t1/approve`, {})).status).toBe(200);

        const stopped = await postHookEvent(d, { event: 'stop', text: 'pushed' });
        expect(stopped.status).toBe(200);
        expect(stopped.body).toMatchObject({ verdict: 'ack', run_id: runId });
        expect((await d.member.get(run)).body.state).toBe('running');
        // The agent's next turn ends too before it makes the call again.
        const again = await postHookEvent(d, { event: 'stop', text: 'pushed' });
        expect(again.status).toBe(200);
        expect(again.body).toMatchObject({ verdict: 'ack', run_id: runId });

        const retried = await postHookEvent(d, bashPreTool('git push origin main', 'tu-2'));
        expect(retried.body).toMatchObject({ verdict: 'allow', task_key: 't1' });
        const reported = await postHookEvent(
          d,
          bashPostTool('git push origin main', 'tu-2', 'succeeded', 'pushed'),
        );
        expect(reported.body).toMatchObject({ task_state: 'succeeded' });
        const ended = await postHookEvent(d, { event: 'stop', text: 'pushed' });
        expect(ended.status).toBe(200);
        expect((await d.member.get(run)).body).toMatchObject({
          state: 'completed',
          final_answer: 'pushed',
        });
      });

      it("keeps the run open without an answer, so the next turn's other calls cross the stage", async () => {
        d = await deploy(backend);
        await d.agent.put('/agent_api/v1/profile/configuration', {
          approval_mode: 'rules',
          approval_rules: [
            { tool: 'Bash', path: 'command', match: 'git push*', verdict: 'ask' },
            { tool: 'Bash', verdict: 'allow' },
          ],
        });
        const parked = await postHookEvent(d, bashPreTool('git push origin main', 'tu-1'));
        const runId = parked.body.run_id as string;
        const run = `${d.ws}/runs/${runId}`;
        expect((await d.member.post(`${run}/tasks/t1/approve`, {})).status).toBe(200);
        const stopped = await postHookEvent(d, { event: 'stop', text: 'later' });
        expect(stopped.body).toMatchObject({ verdict: 'ack', run_id: runId });

        expect((await postHookEvent(d, { event: 'turn_start', text: 'next' })).status).toBe(200);
        const other = await postHookEvent(d, bashPreTool('ls', 'tu-9'));
        expect(other.status).toBe(200);
        expect(other.body).toMatchObject({ verdict: 'allow', run_id: runId, task_key: 't2' });
      });
    },
  );
}
