import { afterEach, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from '../../testing/harness.js';
import { postHookEvent } from '../../testing/hooked-events.js';
import { backends } from '../../testing/stores.js';

/**
 * A `Stop` in a session no other hook told the kernel of (only the turn's
 * end is hooked, or its prompt never reached the kernel) carries the calls
 * the agent's transcript shows it ran: they land on a turn of their own as
 * unstaged calls, never dropped, and the turn ends with the agent's answer.
 */

const all = await backends();

interface StoryEvent {
  type: string;
  data: Record<string, unknown>;
}

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`a stop before any turn (${backend.name})`, () => {
    let d: Deployment;
    afterEach(async () => {
      await d?.close();
    });

    it("records the transcript's calls on a turn of their own", async () => {
      d = await deploy(backend);
      await d.agent.put('/agent_api/v1/profile/configuration', { approval_mode: 'bypass' });
      const ran = { tool_use_id: 'tu-1', tool_name: 'Bash', outcome: 'succeeded', output: 'hi' };
      const stopped = await postHookEvent(d, { event: 'stop', text: 'done', ran_calls: [ran] });
      expect(stopped.status).toBe(200);
      const runId = stopped.body.run_id as string;
      expect(runId).toEqual(expect.any(String));
      const story = (await d.member.get(`${d.ws}/runs/${runId}/events`)).body
        .events as StoryEvent[];
      expect(story.filter((e) => e.type === 'run.unstaged_call').map((e) => e.data)).toEqual([
        expect.objectContaining({
          tool_use_id: 'tu-1',
          outcome: 'succeeded',
          found_in: 'transcript',
        }),
      ]);
      const run = (await d.member.get(`${d.ws}/runs/${runId}`)).body;
      expect(run).toMatchObject({ state: 'completed', final_answer: 'done' });
    });
  });
}
