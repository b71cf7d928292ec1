import { afterEach, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from '../../testing/harness.js';
import { postHookEvent } from '../../testing/hooked-events.js';
import { backends } from '../../testing/stores.js';

/**
 * `runs.calls` on a gateway run that takes no call now is refused
 * `run_busy`, and, as a hooked call's refusal does, the detail says what the
 * run waits for (a failed row that holds it for a person, its stop hook),
 * not a lifecycle hook it may not wait on.
 */

const all = await backends();

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`runs.calls run_busy detail (${backend.name})`, () => {
    let d: Deployment;
    afterEach(async () => {
      await d?.close();
    });

    it('names the failed row that holds a hooked turn for a person', async () => {
      d = await deploy(backend);
      await d.agent.put('/agent_api/v1/profile/configuration', {
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
      const refused = await d.agent.post(`${d.ws}/runs/${turn.body.run_id}/calls`, {
        calls: [{ name: 'Bash', input: { command: 'ls' }, id: 'c-1' }],
      });
      expect(refused.status).toBe(409);
      expect(refused.body.error.code).toBe('run_busy');
      expect(refused.body.error.detail).toContain(
        `task ${turn.body.task_key} failed and holds the run for a person`,
      );
      expect(refused.body.error.detail).not.toContain('lifecycle hook');
    });

    it("names the stop hook a gateway run's final answer waits on", async () => {
      d = await deploy(backend);
      await d.agent.put('/agent_api/v1/profile/configuration', {
        approval_mode: 'bypass',
        lifecycle_hooks: { stop: { tool: 'check_stop', timeout_ms: 60_000, max_continuations: 1 } },
      });
      const conversation = (await d.agent.post('/agent_api/v1/conversations')).body.id;
      const turn = await d.agent.post(`/agent_api/v1/conversations/${conversation}/inputs`, {
        input: 'mcp session',
        provider: { kind: 'gateway', client: 'test-client 1.0' },
      });
      const calls = `${d.ws}/runs/${turn.body.id}/calls`;
      expect((await d.agent.post(calls, { final: 'done' })).status).toBeLessThan(300);
      const refused = await d.agent.post(calls, {
        calls: [{ name: 'fs__read_file', input: { path: 'a.txt' }, id: '1' }],
      });
      expect(refused.status).toBe(409);
      expect(refused.body.error.code).toBe('run_busy');
      expect(refused.body.error.detail).toMatch(
        /the turn's answer waits on its stop hook \(task t\d+\)/,
      );
    });
  });
}
