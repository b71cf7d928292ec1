import { afterEach, describe, expect, it } from 'vitest';
import type { Deployment } from '../../testing/harness.js';
import {
  bashPostTool,
  bashPreTool,
  grantedMakeTestAMinuteAgo,
  postHookEvent,
} from '../../testing/hooked-events.js';
import { backends } from '../../testing/stores.js';

/**
 * A report under the agent's call id names its row exactly: an identical
 * call (same tool, same input) parked under another id in a newer turn is
 * another call, and never takes the report of the earlier turn's call.
 */

const all = await backends();

interface StoryEvent {
  type: string;
}

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`a report by exact call id (${backend.name})`, () => {
    let d: Deployment;
    afterEach(async () => {
      await d?.close();
    });

    it("goes to its own row in its own turn, not to a newer turn's identical parked call", async () => {
      const granted = await grantedMakeTestAMinuteAgo(backend);
      d = granted.d;
      const first = granted.runId;
      expect((await d.member.post(`${d.ws}/runs/${first}/stop`, {})).status).toBe(200);
      await d.agent.put('/agent_api/v1/profile/configuration', {
        approval_mode: 'rules',
        approval_rules: [{ tool: 'Bash', path: 'command', match: 'make*', verdict: 'ask' }],
      });
      const parked = await postHookEvent(d, bashPreTool('make test', 'tu-2'));
      expect(parked.body).toMatchObject({ task_key: 't1', task_state: 'needs_approval' });
      const second = parked.body.run_id as string;
      expect(second).not.toBe(first);

      const report = await postHookEvent(d, bashPostTool('make test', 'tu-1', 'succeeded', 'ok'));
      expect(report.body).toMatchObject({
        verdict: 'ack',
        run_id: first,
        task_key: 't1',
        task_state: 'succeeded',
        reason: null,
      });
      // The newer turn's parked call is untouched, and its story records nothing ran.
      const newer = (await d.member.get(`${d.ws}/runs/${second}/tasks/t1`)).body;
      expect(newer).toMatchObject({ state: 'needs_approval' });
      const story = (await d.member.get(`${d.ws}/runs/${second}/events`)).body
        .events as StoryEvent[];
      expect(story.filter((e) => e.type === 'run.unstaged_call')).toEqual([]);
    });
  });
}
