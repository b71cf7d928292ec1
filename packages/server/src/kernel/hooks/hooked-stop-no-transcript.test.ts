import { claudeCode, runHook } from '@airlock/hooks';
import { afterEach, describe, expect, it } from 'vitest';
import type { Deployment } from '../../testing/harness.js';
import {
  bashPostTool,
  grantedMakeTestAMinuteAgo,
  postHookEvent,
} from '../../testing/hooked-events.js';
import { backends } from '../../testing/stores.js';

/**
 * A `Stop` that carries no transcript (the agent named none, or the hook
 * client could not read it) tells the kernel nothing about the turn's
 * unreported calls: they may have run, their reports lost. They fail
 * `outcome_unknown`, never `not_run`, and a report that comes after all
 * records what ran.
 */

const all = await backends();

interface StoryTask {
  key: string;
  state: string;
  error: { code: string } | null;
}

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`a stop with no transcript (${backend.name})`, () => {
    let d: Deployment;
    afterEach(async () => {
      await d?.close();
    });

    /** A granted `make test` whose grant is older than the stop's wait for reports. */
    async function grantedCall(): Promise<string> {
      const granted = await grantedMakeTestAMinuteAgo(backend);
      d = granted.d;
      return granted.runId;
    }
    const tasksOf = async (runId: string) =>
      (await d.member.get(`${d.ws}/runs/${runId}/tasks`)).body.tasks as StoryTask[];
    const unknown = [
      expect.objectContaining({
        key: 't1',
        state: 'failed',
        error: expect.objectContaining({ code: 'outcome_unknown' }),
      }),
    ];

    it('closes an unreported call outcome_unknown, which its late report corrects', async () => {
      const runId = await grantedCall();
      expect((await postHookEvent(d, { event: 'stop', text: 'done' })).status).toBe(200);
      expect(await tasksOf(runId)).toEqual(unknown);
      const late = await postHookEvent(d, bashPostTool('make test', 'tu-1', 'succeeded', 'ok'));
      expect(late.body).toMatchObject({ verdict: 'ack', task_key: 't1', task_state: 'succeeded' });
    });

    it('closes it outcome_unknown when the hook client cannot read the transcript', async () => {
      const runId = await grantedCall();
      const env = { AIRLOCK_URL: d.url, AIRLOCK_TOKEN: d.tokens.agent, HOME: '/nonexistent' };
      const stopped = await runHook({
        protocol: claudeCode,
        env,
        waitMs: 5000,
        input: JSON.stringify({
          session_id: 's-1',
          hook_event_name: 'Stop',
          transcript_path: '/nonexistent/transcript.jsonl',
          last_assistant_message: 'done',
        }),
      });
      expect(stopped.exitCode).toBe(0);
      expect(await tasksOf(runId)).toEqual(unknown);
    });
  });
}
