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
 * A call granted in one turn may still run when a member stops that turn
 * and the agent's next call opens a new one. Its report, when it comes, is
 * of the call of the earlier turn: committed to that row (no longer left
 * claimed), not recorded on the new turn as a call no hook asked about.
 */

const all = await backends();

interface StoryEvent {
  type: string;
  data: Record<string, unknown>;
}

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `a report that comes after its turn ended (${backend.name})`,
    () => {
      let d: Deployment;
      afterEach(async () => {
        await d?.close();
      });

      it("is committed to its own row in its own turn, not to the next turn's story", async () => {
        const granted = await grantedMakeTestAMinuteAgo(backend);
        d = granted.d;
        const first = granted.runId;
        expect((await d.member.post(`${d.ws}/runs/${first}/stop`, {})).status).toBe(200);
        const next = await postHookEvent(d, bashPreTool('make lint', 'tu-2'));
        expect(next.body).toMatchObject({ verdict: 'allow', task_key: 't1' });
        const second = next.body.run_id as string;
        expect(second).not.toBe(first);

        const report = await postHookEvent(d, bashPostTool('make test', 'tu-1', 'failed', 'boom'));
        expect(report.status).toBe(200);
        expect(report.body).toMatchObject({
          verdict: 'ack',
          run_id: first,
          task_key: 't1',
          task_state: 'failed',
          reason: null,
        });
        const row = (await d.member.get(`${d.ws}/runs/${first}/tasks/t1`)).body;
        expect(row).toMatchObject({
          state: 'failed',
          error: { code: 'tool_failed', detail: 'boom' },
        });
        const story = (await d.member.get(`${d.ws}/runs/${second}/events`)).body
          .events as StoryEvent[];
        expect(story.filter((e) => e.type === 'run.unstaged_call')).toEqual([]);
        // The new turn's own call is untouched, and its report lands on its own row.
        const own = await postHookEvent(d, bashPostTool('make lint', 'tu-2', 'succeeded', 'ok'));
        expect(own.body).toMatchObject({ run_id: second, task_key: 't1', task_state: 'succeeded' });
      });

      it("a call id used again in a later turn reports that turn's call, not the earlier one", async () => {
        const granted = await grantedMakeTestAMinuteAgo(backend);
        d = granted.d;
        const first = granted.runId;
        const ran = await postHookEvent(d, bashPostTool('make test', 'tu-1', 'succeeded', 'ok'));
        expect(ran.body).toMatchObject({ run_id: first, task_state: 'succeeded' });
        expect((await postHookEvent(d, { event: 'stop', text: 'done' })).status).toBe(200);
        expect((await d.member.get(`${d.ws}/runs/${first}`)).body.state).toBe('completed');
        const next = await postHookEvent(d, bashPreTool('make lint', 'tu-2'));
        const second = next.body.run_id as string;
        expect(second).not.toBe(first);

        for (const command of ['make test', 'make docs']) {
          const again = await postHookEvent(d, bashPostTool(command, 'tu-1', 'succeeded', 'new'));
          expect(again.body).toMatchObject({
            run_id: second,
            reason: 'this call never crossed the approval stage; recorded as such',
          });
        }
        const story = async (runId: string) =>
          ((await d.member.get(`${d.ws}/runs/${runId}/events`)).body.events as StoryEvent[])
            .filter((e) => e.type === 'run.unstaged_call')
            .map((e) => e.data.tool_use_id);
        expect(await story(first)).toEqual([]);
        expect(await story(second)).toEqual(['tu-1', 'tu-1']);
        const row = (await d.member.get(`${d.ws}/runs/${first}/tasks/t1`)).body;
        expect(row).toMatchObject({ state: 'succeeded' });
        expect(JSON.stringify(row.result)).toContain('ok');
      });

      it('a call of no turn is still recorded on the current turn as unstaged', async () => {
        const granted = await grantedMakeTestAMinuteAgo(backend);
        d = granted.d;
        const report = await postHookEvent(d, bashPostTool('make x', 'tu-9', 'succeeded', 'x'));
        expect(report.body).toMatchObject({
          run_id: granted.runId,
          reason: 'this call never crossed the approval stage; recorded as such',
        });
      });
    },
  );
}
