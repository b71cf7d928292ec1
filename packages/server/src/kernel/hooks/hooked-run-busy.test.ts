import { afterEach, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from '../../testing/harness.js';
import { bashPreTool, postHookEvent } from '../../testing/hooked-events.js';
import { backends } from '../../testing/stores.js';

/**
 * A call made while its turn cannot take one is refused `run_busy`, and the
 * detail says what the turn waits for: its stop hook's decision, or a
 * person, for a failed row that holds the run.
 */

const all = await backends();
const PROFILE = '/agent_api/v1/profile/configuration';

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `run_busy says what the turn waits for (${backend.name})`,
    () => {
      let d: Deployment;
      afterEach(async () => {
        await d?.close();
      });

      it("names the stop hook the turn's answer waits on", async () => {
        d = await deploy(backend);
        await d.agent.put(PROFILE, {
          approval_mode: 'bypass',
          lifecycle_hooks: {
            stop: { tool: 'check_stop', timeout_ms: 60_000, max_continuations: 1 },
          },
        });
        expect((await postHookEvent(d, { event: 'turn_start', text: 'hi' })).status).toBe(200);
        const stopping = await postHookEvent(d, { event: 'stop', text: 'bye' });
        expect(stopping.body).toMatchObject({ verdict: 'wait' });
        const refused = await postHookEvent(d, bashPreTool('ls', 'tu-1'));
        expect(refused.status).toBe(409);
        expect(refused.body.error.code).toBe('run_busy');
        expect(refused.body.error.detail).toContain(
          `the turn's answer waits on its stop hook (task ${stopping.body.task_key})`,
        );
      });

      it('names the failed row that holds the run for a person', async () => {
        d = await deploy(backend);
        await d.agent.put(PROFILE, {
          approval_mode: 'rules',
          approval_rules: [{ tool: 'check_turn', verdict: 'allow', origin: 'kernel' }],
          lifecycle_hooks: { turn_start: { tool: 'check_turn', timeout_ms: 60_000 } },
        });
        const turn = await postHookEvent(d, { event: 'turn_start', text: 'hi' });
        const base = `/executor_api/v1/runs/${turn.body.run_id}/tasks/${turn.body.task_key}`;
        const claim = await d.executor.post(`${base}/claim`);
        await d.executor.post(`${base}/commit`, {
          claim_id: claim.body.claim_id,
          outcome: 'failed',
          error: { code: 'check_failed', detail: 'no' },
        });
        expect((await postHookEvent(d, { event: 'stop', text: 'bye' })).status).toBe(200);
        const refused = await postHookEvent(d, bashPreTool('ls', 'tu-1'));
        expect(refused.status).toBe(409);
        expect(refused.body.error.code).toBe('run_busy');
        expect(refused.body.error.detail).toContain(
          `task ${turn.body.task_key} failed and holds the run for a person`,
        );
        expect(refused.body.error.detail).not.toContain('lifecycle hook');
      });
    },
  );
}
