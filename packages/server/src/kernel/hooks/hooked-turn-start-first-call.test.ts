import { afterEach, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from '../../testing/harness.js';
import { bashPostTool, bashPreTool, postHookEvent } from '../../testing/hooked-events.js';
import { backends } from '../../testing/stores.js';

/**
 * A turn opened by a call or its report (its prompt never reached the
 * kernel: the prompt's hook failed and let the agent go on, or is not
 * installed) still passes
 * the profile's `turn_start` hook before anything else: its calls are
 * refused `run_busy` until the hook decides, never granted past it.
 */

const all = await backends();

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`a turn opened by a call (${backend.name})`, () => {
    let d: Deployment;
    afterEach(async () => {
      await d?.close();
    });

    it('runs the turn_start hook first, and its calls wait for it', async () => {
      d = await deploy(backend);
      await d.agent.put('/agent_api/v1/profile/configuration', {
        approval_mode: 'rules',
        approval_rules: [
          { tool: 'check_turn', verdict: 'allow', origin: 'kernel' },
          { tool: 'Bash', verdict: 'allow' },
        ],
        lifecycle_hooks: { turn_start: { tool: 'check_turn', timeout_ms: 60_000 } },
      });
      const refused = await postHookEvent(d, bashPreTool('ls', 'tu-1'));
      expect(refused.status).toBe(409);
      expect(refused.body.error.code).toBe('run_busy');
      const runs = (await d.member.get(`${d.ws}/runs`)).body.runs as { id: string }[];
      expect(runs).toHaveLength(1);
      const runId = runs[0]?.id as string;
      const tasks = (await d.member.get(`${d.ws}/runs/${runId}/tasks`)).body.tasks as {
        key: string;
        kind: string;
        tool_name: string;
      }[];
      expect(tasks.map((task) => [task.kind, task.tool_name])).toEqual([['hook', 'check_turn']]);

      // Once the hook passes, the call made again is granted.
      const base = `/executor_api/v1/runs/${runId}/tasks/${tasks[0]?.key}`;
      const claim = await d.executor.post(`${base}/claim`);
      const committed = await d.executor.post(`${base}/commit`, {
        claim_id: claim.body.claim_id,
        outcome: 'succeeded',
        result: { structured_content: { continue: false } },
      });
      expect(committed.status).toBe(200);
      const again = await postHookEvent(d, bashPreTool('ls', 'tu-1'));
      expect(again.body).toMatchObject({ verdict: 'allow', run_id: runId });
    });

    it('runs it too in a turn a report opened, before the calls that join it', async () => {
      d = await deploy(backend);
      await d.agent.put('/agent_api/v1/profile/configuration', {
        approval_mode: 'bypass',
        lifecycle_hooks: { turn_start: { tool: 'check_turn', timeout_ms: 60_000 } },
      });
      const reported = await postHookEvent(d, bashPostTool('ls', 'tu-0', 'succeeded', 'a'));
      expect(reported.body).toMatchObject({ verdict: 'ack' });
      const refused = await postHookEvent(d, bashPreTool('ls', 'tu-1'));
      expect(refused.status).toBe(409);
      expect(refused.body.error.code).toBe('run_busy');
    });
  });
}
