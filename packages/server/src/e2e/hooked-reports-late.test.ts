import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type Deployment, sharedKernels } from '../testing/harness.js';
import { bashPreTool, postHookEvent } from '../testing/hooked-events.js';
import { backends } from '../testing/stores.js';

/**
 * Claude Code reports what ran from a hook in the background, so a turn's
 * `Stop` can reach the kernel before the report of its last call. The stop
 * waits for a report still on its way instead of closing the call as not run.
 */

const all = await backends();
const PROFILE = '/agent_api/v1/profile/configuration';
const RULES = [{ tool: 'Bash', path: 'command', match: 'ls*', verdict: 'allow' }];

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`reports behind a stop (${backend.name})`, () => {
    let d: Deployment;
    const kernels = sharedKernels();
    afterAll(() => kernels.close());
    afterEach(async () => {
      await d?.close();
    });

    const event = (body: Record<string, unknown>) => postHookEvent(d, body);
    const report = (id: string) =>
      event({
        event: 'post_tool',
        tool_name: 'Bash',
        tool_input: { command: 'ls' },
        tool_use_id: id,
        outcome: 'succeeded',
        output: 'README.md',
      });
    const tasksOf = async (runId: string) =>
      (await d.member.get(`${d.ws}/runs/${runId}/tasks`)).body.tasks as {
        key: string;
        state: string;
        error: { code: string } | null;
      }[];

    it('a stop that overtakes the last call’s report waits for it: the call is committed as run', async () => {
      d = await kernels.deploy(backend);
      await d.agent.put(PROFILE, { approval_mode: 'rules', approval_rules: RULES });
      const granted = await event(bashPreTool('ls', 'tu-1'));
      expect(granted.body).toMatchObject({ verdict: 'allow', task_state: 'claimed' });
      const runId = granted.body.run_id as string;
      // The stop is sent first; the report follows it a moment later.
      const stopping = event({ event: 'stop', text: 'done' });
      await new Promise((resolve) => setTimeout(resolve, 150));
      const reported = await report('tu-1');
      expect(reported.body).toMatchObject({ verdict: 'ack', task_state: 'succeeded' });
      expect((await stopping).status).toBe(200);
      expect(await tasksOf(runId)).toEqual([
        expect.objectContaining({ key: 't1', state: 'succeeded', error: null }),
      ]);
      const run = (await d.member.get(`${d.ws}/runs/${runId}`)).body;
      expect(run.state).toBe('completed');
      const story = (await d.member.get(`${d.ws}/runs/${runId}/events`)).body.events as {
        type: string;
      }[];
      expect(story.map((e) => e.type)).not.toContain('task.failed');
    });

    it('a granted call whose report never comes is closed as not run once the grace is over', async () => {
      d = await kernels.deploy(backend);
      await d.agent.put(PROFILE, { approval_mode: 'rules', approval_rules: RULES });
      const granted = await event(bashPreTool('ls', 'tu-1'));
      const runId = granted.body.run_id as string;
      // The transcript read at the stop shows no such call (without one, see hooked-stop-no-transcript).
      const stopped = await event({ event: 'stop', text: 'done', ran_calls: [] });
      expect(stopped.status).toBe(200);
      expect(await tasksOf(runId)).toEqual([
        expect.objectContaining({
          key: 't1',
          state: 'failed',
          error: expect.objectContaining({ code: 'not_run' }),
        }),
      ]);
    });
  });
}
