import { describe, expect, it, type TestContext } from 'vitest';
import { type Deployment, deploy } from '../../testing/harness.js';
import { HOOK_EVENTS_PATH } from '../../testing/hooked-events.js';
import { backends } from '../../testing/stores.js';

/**
 * A Codex call that is no exec (apply_patch, an MCP tool) whose report never
 * came: Codex ran it (real Codex 0.169 applies the patch whether or not its
 * PostToolUse hook is heard), and its transcript shows it returned, but says
 * no exit code. The turn's stop must not claim it did not run: the row fails
 * `outcome_unknown`, and the report, should it come after all, records what ran.
 */

const all = await backends();
const PATCH = '*** Begin Patch\n*** Add File: hello.txt\n+hi\n*** End Patch\n';
const CALL = { tool_name: 'apply_patch', tool_input: { command: PATCH }, tool_use_id: 'call_1' };

interface StoryTask {
  key: string;
  state: string;
  error: { code: string } | null;
}

// Each case has a kernel of its own and spends most of its time in the stop's wait for the
// report of a call granted just now (REPORT_GRACE_MS of real time), so the cases run side by side.
for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `an unreported Codex call (${backend.name})`,
    { concurrent: true },
    () => {
      const event = (d: Deployment, body: Record<string, unknown>) =>
        d.agent.post(HOOK_EVENTS_PATH, { agent: 'codex', session_id: 'cx-1', ...body });
      const tasksOf = async (d: Deployment, runId: string) =>
        (await d.member.get(`${d.ws}/runs/${runId}/tasks`)).body.tasks as StoryTask[];

      /** A kernel whose Codex session's patch was granted just now; closed with the test. */
      async function grantedPatch(
        onTestFinished: TestContext['onTestFinished'],
      ): Promise<{ d: Deployment; runId: string }> {
        const d = await deploy(backend);
        onTestFinished(() => d.close());
        await d.agent.put('/agent_api/v1/profile/configuration', { approval_mode: 'bypass' });
        const granted = await event(d, { event: 'pre_tool', ...CALL });
        expect(granted.body).toMatchObject({ verdict: 'allow', task_state: 'claimed' });
        return { d, runId: granted.body.run_id as string };
      }

      it('that its transcript shows returned without an outcome is closed outcome_unknown', async ({
        onTestFinished,
      }) => {
        const { d, runId } = await grantedPatch(onTestFinished);
        const returned = {
          tool_use_id: 'call_1',
          tool_name: 'apply_patch',
          output: 'apply_patch verification failed: Failed to read file to update',
        };
        const stopped = await event(d, { event: 'stop', text: 'done', ran_calls: [returned] });
        expect(stopped.status).toBe(200);
        expect(await tasksOf(d, runId)).toEqual([
          expect.objectContaining({
            key: 't1',
            state: 'failed',
            error: expect.objectContaining({ code: 'outcome_unknown' }),
          }),
        ]);
        // The report that comes after all is recorded: what ran replaces "unknown".
        const late = await event(d, {
          event: 'post_tool',
          ...CALL,
          outcome: 'succeeded',
          output: 'Success. Updated the following files:\nA hello.txt\n',
        });
        expect(late.body).toMatchObject({
          verdict: 'ack',
          task_key: 't1',
          task_state: 'succeeded',
        });
      });

      it('that its transcript does not show returned is still closed not_run', async ({
        onTestFinished,
      }) => {
        const { d, runId } = await grantedPatch(onTestFinished);
        const stopped = await event(d, {
          event: 'stop',
          text: 'done',
          ran_calls: [{ tool_use_id: 'call_1', tool_name: 'apply_patch' }],
        });
        expect(stopped.status).toBe(200);
        expect(await tasksOf(d, runId)).toEqual([
          expect.objectContaining({
            key: 't1',
            state: 'failed',
            error: expect.objectContaining({ code: 'not_run' }),
          }),
        ]);
      });
    },
  );
}
