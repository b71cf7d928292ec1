import { afterEach, describe, expect, it } from 'vitest';
import type { Deployment } from '../../testing/harness.js';
import {
  bashPostTool,
  grantedMakeTestAMinuteAgo,
  postHookEvent,
} from '../../testing/hooked-events.js';
import { backends } from '../../testing/stores.js';

/**
 * A stop whose transcript does not show a granted call returned closes its
 * row `not_run`: the kernel's guess. When the agent's report of that call
 * comes after all, it is the truth: the row records what ran, as a late
 * report does for a row whose outcome was unknown.
 */

const all = await backends();

interface StoryTask {
  key: string;
  state: string;
  result: unknown;
  error: { code: string } | null;
}

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `a late report of a not_run call (${backend.name})`,
    () => {
      let d: Deployment;
      afterEach(async () => {
        await d?.close();
      });

      async function closedNotRun(): Promise<string> {
        const granted = await grantedMakeTestAMinuteAgo(backend);
        d = granted.d;
        const ranCalls = [{ tool_use_id: 'tu-1', tool_name: 'Bash' }];
        const stop = await postHookEvent(d, { event: 'stop', text: 'done', ran_calls: ranCalls });
        expect(stop.status).toBe(200);
        const { runId } = granted;
        expect(await tasksOf(runId)).toEqual([
          expect.objectContaining({
            key: 't1',
            state: 'failed',
            error: expect.objectContaining({ code: 'not_run' }),
          }),
        ]);
        return runId;
      }
      const tasksOf = async (runId: string) =>
        (await d.member.get(`${d.ws}/runs/${runId}/tasks`)).body.tasks as StoryTask[];
      const eventsOf = async (runId: string) =>
        (await d.member.get(`${d.ws}/runs/${runId}/events`)).body.events as {
          type: string;
          data: Record<string, unknown>;
        }[];

      it('a report that the call succeeded replaces not_run with what ran', async () => {
        const runId = await closedNotRun();
        const late = await postHookEvent(
          d,
          bashPostTool('make test', 'tu-1', 'succeeded', 'all tests passed'),
        );
        expect(late.body).toMatchObject({
          verdict: 'ack',
          task_key: 't1',
          task_state: 'succeeded',
        });
        const [task] = await tasksOf(runId);
        expect(task).toMatchObject({ key: 't1', state: 'succeeded', error: null });
        expect(JSON.stringify(task?.result)).toContain('all tests passed');
        const moves = (await eventsOf(runId)).filter((event) => event.type.startsWith('task.'));
        expect(moves.at(-1)).toMatchObject({
          type: 'task.succeeded',
          data: { ran_by: expect.any(String) },
        });
      });

      it('a report that the call failed records the tool failure and its output', async () => {
        const runId = await closedNotRun();
        const late = await postHookEvent(
          d,
          bashPostTool('make test', 'tu-1', 'failed', '1 failed'),
        );
        expect(late.body).toMatchObject({ verdict: 'ack', task_key: 't1', task_state: 'failed' });
        const [task] = await tasksOf(runId);
        expect(task?.error).toMatchObject({ code: 'tool_failed' });
        expect(JSON.stringify(task?.result)).toContain('1 failed');
      });
    },
  );
}
