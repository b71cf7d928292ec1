import { afterEach, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from '../../testing/harness.js';
import { bashPostTool, bashPreTool, postHookEvent } from '../../testing/hooked-events.js';
import { backends } from '../../testing/stores.js';

/**
 * A report of a call that ran in a session with no turn yet (its first
 * prompt never reached the kernel, the hooks were installed mid-session, or
 * the session's turn was pruned) still ran: it lands on a turn of its own as
 * an unstaged call, never dropped, and the session's next call joins that turn.
 */

const all = await backends();

interface StoryEvent {
  type: string;
  data: Record<string, unknown>;
}

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`a report before any turn (${backend.name})`, () => {
    let d: Deployment;
    afterEach(async () => {
      await d?.close();
    });

    it('opens a turn and records the call as unstaged', async () => {
      d = await deploy(backend);
      await d.agent.put('/agent_api/v1/profile/configuration', { approval_mode: 'bypass' });
      expect((await postHookEvent(d, { event: 'session_start' })).status).toBe(200);
      const reported = await postHookEvent(
        d,
        bashPostTool('rm -rf build', 'tu-1', 'succeeded', 'removed'),
      );
      expect(reported.status).toBe(200);
      expect(reported.body).toMatchObject({
        verdict: 'ack',
        reason: 'this call never crossed the approval stage; recorded as such',
      });
      const runId = reported.body.run_id as string;
      expect(runId).toEqual(expect.any(String));
      const story = (await d.member.get(`${d.ws}/runs/${runId}/events`)).body
        .events as StoryEvent[];
      expect(story.filter((e) => e.type === 'run.unstaged_call').map((e) => e.data)).toEqual([
        expect.objectContaining({
          tool_name: 'Bash',
          tool_use_id: 'tu-1',
          outcome: 'succeeded',
          output: 'removed',
          found_in: 'post_tool',
        }),
      ]);
      // The session's next call is a call of that same turn.
      const next = await postHookEvent(d, bashPreTool('ls', 'tu-2'));
      expect(next.body).toMatchObject({ verdict: 'allow', run_id: runId, task_key: 't1' });
    });
  });
}
