import { afterEach, describe, expect, it } from 'vitest';
import type { Deployment } from '../../testing/harness.js';
import {
  bashPostTool,
  grantedMakeTestAMinuteAgo,
  postHookEvent,
} from '../../testing/hooked-events.js';
import { backends } from '../../testing/stores.js';

/**
 * A member's stop of a hooked session's turn while the agent holds a granted
 * call: the agent may be running it, so the row settles "may have run"
 * (outcome_unknown), never canceled, and a report that comes after all
 * records what ran.
 */

interface StoryTask {
  key: string;
  state: string;
  result: unknown;
  error: { code: string; detail: string } | null;
}

for (const backend of await backends()) {
  describe.skipIf(backend.skip !== null)(`a member stops a hooked turn (${backend.name})`, () => {
    let d: Deployment | undefined;
    afterEach(async () => {
      await d?.close();
      d = undefined;
    });
    const tasksOf = async (runId: string) =>
      (await d!.member.get(`${d!.ws}/runs/${runId}/tasks`)).body.tasks as StoryTask[];

    it('settles the call the agent holds as outcome_unknown, which its late report corrects', async () => {
      const granted = await grantedMakeTestAMinuteAgo(backend);
      d = granted.d;
      const stopped = await d.member.post(`${d.ws}/runs/${granted.runId}/stop`);
      expect(stopped.body).toMatchObject({ state: 'canceled' });
      const [task] = await tasksOf(granted.runId);
      expect(task).toMatchObject({
        key: 't1',
        state: 'failed',
        error: expect.objectContaining({ code: 'outcome_unknown' }),
      });
      expect(task?.error?.detail).toMatch(/may have run/);
      const reported = await postHookEvent(
        d,
        bashPostTool('make test', 'tu-1', 'succeeded', 'all tests passed'),
      );
      expect(reported.status).toBe(200);
      const [after] = await tasksOf(granted.runId);
      expect(after).toMatchObject({ key: 't1', state: 'succeeded', error: null });
      expect(JSON.stringify(after?.result)).toContain('all tests passed');
    });
  });
}
