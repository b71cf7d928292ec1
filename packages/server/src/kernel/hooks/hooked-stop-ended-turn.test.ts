import { afterEach, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from '../../testing/harness.js';
import { postHookEvent } from '../../testing/hooked-events.js';
import { backends } from '../../testing/stores.js';

/**
 * A `Stop` after the session's last turn ended (no hook told the kernel of
 * the agent's next prompt or calls) carries that next turn's calls in its
 * transcript: they go on a new turn, which ends with the stop's answer, not
 * on the turn that already ended. The same stop sent again, with the ended
 * turn's own calls, opens nothing.
 */

const all = await backends();

interface StoryEvent {
  type: string;
  data: Record<string, unknown>;
}

function ranCall(id: string, output: string) {
  return { tool_use_id: id, tool_name: 'Bash', outcome: 'succeeded', output };
}

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `a stop after the last turn ended (${backend.name})`,
    () => {
      let d: Deployment;
      afterEach(async () => {
        await d?.close();
      });

      async function unstagedIds(runId: string): Promise<unknown[]> {
        const story = (await d.member.get(`${d.ws}/runs/${runId}/events`)).body
          .events as StoryEvent[];
        return story.filter((e) => e.type === 'run.unstaged_call').map((e) => e.data.tool_use_id);
      }

      it("records the next turn's calls and answer on a turn of their own", async () => {
        d = await deploy(backend);
        await d.agent.put('/agent_api/v1/profile/configuration', { approval_mode: 'bypass' });
        const ended = await postHookEvent(d, {
          event: 'stop',
          text: 'first',
          ran_calls: [ranCall('tu-1', 'one')],
        });
        const first = ended.body.run_id as string;
        expect((await d.member.get(`${d.ws}/runs/${first}`)).body.state).toBe('completed');
        const again = await postHookEvent(d, {
          event: 'stop',
          text: 'first',
          ran_calls: [ranCall('tu-1', 'one')],
        });
        expect(again.body).toMatchObject({ verdict: 'ack', run_id: first });

        const next = await postHookEvent(d, {
          event: 'stop',
          text: 'second',
          ran_calls: [ranCall('tu-2', 'two')],
        });
        expect(next.status).toBe(200);
        const second = next.body.run_id as string;
        expect(second).not.toBe(first);
        expect(await unstagedIds(first)).toEqual(['tu-1']);
        expect(await unstagedIds(second)).toEqual(['tu-2']);
        expect((await d.member.get(`${d.ws}/runs/${second}`)).body).toMatchObject({
          state: 'completed',
          final_answer: 'second',
          conversation_id: ended.body.conversation_id,
        });
        const runs = (await d.member.get(`${d.ws}/runs`)).body.runs as { id: string }[];
        expect(runs.map((run) => run.id).sort()).toEqual([first, second].sort());
      });
    },
  );
}
