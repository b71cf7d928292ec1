import { afterEach, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from '../../testing/harness.js';
import { bashPostTool, bashPreTool, postHookEvent } from '../../testing/hooked-events.js';
import { backends } from '../../testing/stores.js';

/**
 * A report is of the call its agent names by its id. A call granted under
 * one id is not another call of the same tool and input reported under
 * another id (one no hook asked about): that one is recorded as unstaged,
 * and the granted call keeps its row for its own report.
 */

const all = await backends();
const PROFILE = '/agent_api/v1/profile/configuration';
const RULES = [{ tool: 'Bash', path: 'command', match: 'ls*', verdict: 'allow' }];

interface StoryEvent {
  type: string;
  data: Record<string, unknown>;
}

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`a report under another call id (${backend.name})`, () => {
    let d: Deployment;
    afterEach(async () => {
      await d?.close();
    });

    it("does not take the row granted to an identical call's id", async () => {
      d = await deploy(backend);
      await d.agent.put(PROFILE, { approval_mode: 'rules', approval_rules: [...RULES] });
      const granted = await postHookEvent(d, bashPreTool('ls', 'tu-A'));
      expect(granted.body).toMatchObject({ verdict: 'allow', task_key: 't1' });
      const runId = granted.body.run_id as string;
      const other = await postHookEvent(d, bashPostTool('ls', 'tu-B', 'succeeded', 'from B'));
      expect(other.body).toMatchObject({
        verdict: 'ack',
        reason: 'this call never crossed the approval stage; recorded as such',
      });
      const own = await postHookEvent(d, bashPostTool('ls', 'tu-A', 'succeeded', 'from A'));
      expect(own.body).toMatchObject({ verdict: 'ack', task_key: 't1', task_state: 'succeeded' });
      const [task] = (await d.member.get(`${d.ws}/runs/${runId}/tasks`)).body.tasks;
      expect(JSON.stringify(task.result)).toContain('from A');
      const story = (await d.member.get(`${d.ws}/runs/${runId}/events`)).body
        .events as StoryEvent[];
      expect(
        story.filter((e) => e.type === 'run.unstaged_call').map((e) => e.data.tool_use_id),
      ).toEqual(['tu-B']);
    });
  });
}
