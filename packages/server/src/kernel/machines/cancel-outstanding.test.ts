import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { type Deployment, deploy, waitFor } from '../../testing/harness.js';
import {
  bashPostTool,
  bashPreTool,
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

    it('settles a held call an older stop left claimed as outcome_unknown once its lease lapses, never canceled', async () => {
      let offset = 0;
      d = await deploy(backend, { clock: () => Date.now() + offset });
      await d.agent.put('/agent_api/v1/profile/configuration', {
        approval_mode: 'rules',
        approval_rules: [{ tool: 'Bash', path: 'command', match: 'make*', verdict: 'allow' }],
      });
      const granted = await postHookEvent(d, bashPreTool('make test', 'tu-1'));
      expect(granted.body).toMatchObject({ task_state: 'claimed' });
      const runId = granted.body.run_id as string;
      // A run a stop ended before stops settled the agent's held call: its row is still claimed.
      await sql`update runs set state = 'canceled', phase = 'done' where id = ${runId}`.execute(
        d.airlock.store.db,
      );
      offset += 2 * 3_600_000;
      const task = await waitFor(async () => {
        const [row] = await tasksOf(runId);
        return row && row.state !== 'claimed' ? row : null;
      });
      expect(task).toMatchObject({
        key: 't1',
        state: 'failed',
        error: expect.objectContaining({ code: 'outcome_unknown' }),
      });
    });
  });
}
