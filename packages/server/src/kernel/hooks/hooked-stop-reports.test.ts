import { describe, expect, it, type TestContext } from 'vitest';
import type { Deployment } from '../../testing/harness.js';
import {
  bashPostTool,
  grantedMakeTestAMinuteAgo,
  postHookEvent,
} from '../../testing/hooked-events.js';
import { backends } from '../../testing/stores.js';

/**
 * A `Stop` can reach the kernel before the report of the turn's last call
 * (Claude Code reports from a hook in the background), also of a call that
 * ran for minutes. The agent's transcript, read at the stop, shows which
 * calls returned: the stop waits for their reports, and records what the
 * transcript shows when a report never comes, never "not run" (a failed
 * result, which an agent's own refusal of the call also reads as, is "outcome
 * unknown", corrected by the report should it come).
 */

const all = await backends();

interface StoryTask {
  key: string;
  state: string;
  result: unknown;
  error: { code: string } | null;
}

// Each case has a kernel of its own and spends most of its time in the stop's wait for reports
// (REPORT_GRACE_MS of real time), so the cases run side by side.
for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `long calls behind a stop (${backend.name})`,
    { concurrent: true },
    () => {
      /** A granted `make test` whose call ran for a minute before the turn stopped; closed with the test. */
      async function grantedLongCall(
        onTestFinished: TestContext['onTestFinished'],
      ): Promise<{ d: Deployment; runId: string }> {
        const granted = await grantedMakeTestAMinuteAgo(backend);
        onTestFinished(() => granted.d.close());
        return granted;
      }
      const stopWith = (d: Deployment, ranCalls: unknown[]) =>
        postHookEvent(d, { event: 'stop', text: 'done', ran_calls: ranCalls });
      const tasksOf = async (d: Deployment, runId: string) =>
        (await d.member.get(`${d.ws}/runs/${runId}/tasks`)).body.tasks as StoryTask[];
      const returned = {
        tool_use_id: 'tu-1',
        tool_name: 'Bash',
        outcome: 'succeeded',
        output: 'ok',
      };

      it('a stop waits for the report of a long call the transcript shows returned', async ({
        onTestFinished,
      }) => {
        const { d, runId } = await grantedLongCall(onTestFinished);
        const stopping = stopWith(d, [returned]);
        await new Promise((resolve) => setTimeout(resolve, 150));
        const reported = await postHookEvent(
          d,
          bashPostTool('make test', 'tu-1', 'succeeded', 'all tests passed'),
        );
        expect(reported.body).toMatchObject({ verdict: 'ack', task_state: 'succeeded' });
        expect((await stopping).status).toBe(200);
        const [task] = await tasksOf(d, runId);
        expect(task).toMatchObject({ key: 't1', state: 'succeeded', error: null });
        expect(JSON.stringify(task?.result)).toContain('all tests passed');
      });

      it('a call the transcript shows succeeded is committed as such when its report never comes', async ({
        onTestFinished,
      }) => {
        const { d, runId } = await grantedLongCall(onTestFinished);
        expect((await stopWith(d, [returned])).status).toBe(200);
        const [task] = await tasksOf(d, runId);
        expect(task).toMatchObject({ key: 't1', state: 'succeeded', error: null });
        expect(JSON.stringify(task?.result)).toContain('ok');
      });

      it('a failed result proves nothing (the agent refusing the call reads the same): outcome unknown, which a late report corrects', async ({
        onTestFinished,
      }) => {
        const { d, runId } = await grantedLongCall(onTestFinished);
        const refused = { ...returned, outcome: 'failed', output: 'Permission denied' };
        expect((await stopWith(d, [refused])).status).toBe(200);
        expect(await tasksOf(d, runId)).toEqual([
          expect.objectContaining({
            key: 't1',
            state: 'failed',
            error: expect.objectContaining({ code: 'outcome_unknown' }),
          }),
        ]);
        // The call ran and failed after all: its report, coming late, records what ran.
        const late = await postHookEvent(
          d,
          bashPostTool('make test', 'tu-1', 'failed', '1 failed'),
        );
        expect(late.body).toMatchObject({ verdict: 'ack', task_key: 't1', task_state: 'failed' });
        const [task] = await tasksOf(d, runId);
        expect(task?.error).toMatchObject({ code: 'tool_failed' });
        expect(JSON.stringify(task?.result)).toContain('1 failed');
      });

      it('a long call the transcript does not show returned is still closed as not run', async ({
        onTestFinished,
      }) => {
        const { d, runId } = await grantedLongCall(onTestFinished);
        expect((await stopWith(d, [])).status).toBe(200);
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
