import { afterEach, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from '../../testing/harness.js';
import { HOOK_EVENTS_PATH } from '../../testing/hooked-events.js';
import { backends } from '../../testing/stores.js';

/**
 * Gemini CLI's hooks carry no call id, so its transcript's calls are matched
 * to the turn's rows by tool and input, in order. A granted call whose
 * report never came (the kernel did not answer its `AfterTool`) and that the
 * transcript shows succeeded is committed as such at the stop, not closed
 * `not_run`; an identical call the transcript shows only once is matched
 * once.
 */

const all = await backends();
const PROFILE = '/agent_api/v1/profile/configuration';
const RULES = [{ tool: 'run_shell_command', path: 'command', match: 'ls*', verdict: 'allow' }];

interface StoryTask {
  key: string;
  state: string;
  result: unknown;
  error: { code: string } | null;
}

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`an unreported Gemini CLI call (${backend.name})`, () => {
    let d: Deployment;
    let offset = 0;
    afterEach(async () => {
      await d?.close();
    });

    const event = (body: Record<string, unknown>) =>
      d.agent.post(HOOK_EVENTS_PATH, { agent: 'gemini', session_id: 'g-1', ...body });
    const ls = { tool_name: 'run_shell_command', tool_input: { command: 'ls' } };
    const tasksOf = async (runId: string) =>
      (await d.member.get(`${d.ws}/runs/${runId}/tasks`)).body.tasks as StoryTask[];

    it('is committed from the transcript by its tool and input', async () => {
      offset = 0;
      d = await deploy(backend, { clock: () => Date.now() + offset });
      await d.agent.put(PROFILE, { approval_mode: 'rules', approval_rules: RULES });
      const first = await event({ event: 'pre_tool', ...ls });
      expect(first.body).toMatchObject({ verdict: 'allow', task_state: 'claimed' });
      const runId = first.body.run_id as string;
      const reported = await event({ event: 'post_tool', ...ls, output: 'README.md' });
      expect(reported.body).toMatchObject({ task_key: 't1', task_state: 'succeeded' });
      const second = await event({ event: 'pre_tool', ...ls });
      expect(second.body).toMatchObject({ task_key: 't2', task_state: 'claimed' });
      const third = await event({ event: 'pre_tool', ...ls });
      expect(third.body).toMatchObject({ task_key: 't3', task_state: 'claimed' });
      offset += 60_000;
      // The transcript shows the first two calls returned; the third never ran.
      const shown = (id: string, output: string) => ({
        tool_use_id: id,
        ...ls,
        outcome: 'succeeded',
        output,
      });
      const stopped = await event({
        event: 'stop',
        text: 'done',
        ran_calls: [shown('g-a', 'README.md'), shown('g-b', 'README.md src')],
      });
      expect(stopped.status).toBe(200);
      const tasks = await tasksOf(runId);
      expect(tasks.map((task) => [task.key, task.state, task.error?.code ?? null])).toEqual([
        ['t1', 'succeeded', null],
        ['t2', 'succeeded', null],
        ['t3', 'failed', 'not_run'],
      ]);
      expect(JSON.stringify(tasks[1]?.result)).toContain('README.md src');
    });
  });
}
