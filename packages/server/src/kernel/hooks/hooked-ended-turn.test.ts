import { afterEach, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from '../../testing/harness.js';
import { bashPreTool, postHookEvent } from '../../testing/hooked-events.js';
import { backends } from '../../testing/stores.js';

/**
 * A hook waiting on a park asks again by the task key the kernel named. When
 * a member stops the run meanwhile, the hook is answered with what became of
 * the call (canceled), from the turn it belongs to: no new turn is opened to
 * look for a key it cannot hold, and nothing is granted.
 */

const all = await backends();

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `a call asked about after its turn ended (${backend.name})`,
    () => {
      let d: Deployment;
      afterEach(async () => {
        await d?.close();
      });

      it('is refused as canceled, in its own turn, and no other turn opens', async () => {
        d = await deploy(backend);
        await d.agent.put('/agent_api/v1/profile/configuration', { approval_mode: 'ask' });
        const parked = await postHookEvent(d, bashPreTool('make deploy', 'tu-1'));
        expect(parked.body).toMatchObject({ verdict: 'wait', task_key: 't1' });
        const runId = parked.body.run_id as string;
        expect((await d.member.post(`${d.ws}/runs/${runId}/stop`, {})).status).toBe(200);
        const asked = await postHookEvent(d, {
          ...bashPreTool('make deploy', 'tu-1'),
          task_key: 't1',
        });
        expect(asked.status).toBe(200);
        expect(asked.body).toMatchObject({
          verdict: 'deny',
          run_id: runId,
          task_key: 't1',
          task_state: 'canceled',
          reason: 'the call was canceled',
        });
        const runs = (await d.member.get(`${d.ws}/runs`)).body.runs as { id: string }[];
        expect(runs.map((run) => run.id)).toEqual([runId]);
        // Another call under that key is still another call.
        const other = await postHookEvent(d, {
          ...bashPreTool('make other', 'tu-1'),
          task_key: 't1',
        });
        expect(other.body.error?.code).toBe('call_mismatch');
      });
    },
  );
}
