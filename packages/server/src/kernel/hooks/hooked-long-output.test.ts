import { claudeCode, runHook } from '@airlock/hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from '../../testing/harness.js';
import { backends } from '../../testing/stores.js';

/**
 * A call whose output is longer than a report may carry (a log, a large
 * file read): the Node.js hook client sends what the kernel keeps of it, so
 * the report is recorded instead of refused, and the call shows as run.
 */

const all = await backends();
const PROFILE = '/agent_api/v1/profile/configuration';
const RULES = [{ tool: 'Bash', path: 'command', match: 'cat *', verdict: 'allow' }];

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`a long output reported (${backend.name})`, () => {
    let d: Deployment;
    afterEach(async () => {
      await d?.close();
    });

    it('the call that printed 1.2 million characters is committed with what the kernel keeps', async () => {
      d = await deploy(backend);
      await d.agent.put(PROFILE, { approval_mode: 'rules', approval_rules: RULES });
      const env = { AIRLOCK_URL: d.url, AIRLOCK_TOKEN: d.tokens.agent, HOME: '/nonexistent' };
      const call = {
        session_id: 's1',
        tool_name: 'Bash',
        tool_input: { command: 'cat big.log' },
        tool_use_id: 'tu-1',
      };
      const hook = (payload: Record<string, unknown>) =>
        runHook({ protocol: claudeCode, env, input: JSON.stringify({ ...call, ...payload }) });
      const pre = await hook({ hook_event_name: 'PreToolUse' });
      expect(JSON.parse(pre.stdout).hookSpecificOutput.permissionDecision).toBe('allow');
      const post = await hook({
        hook_event_name: 'PostToolUse',
        tool_response: { stdout: 'x'.repeat(1_200_000), stderr: '' },
      });
      // A recorded report says nothing to the user; a refused one says it could not be recorded.
      expect(post).toEqual({ stdout: '{}\n', stderr: '', exitCode: 0 });
      const runs = (await d.member.get(`${d.ws}/runs`)).body.runs as { id: string }[];
      const tasks = (await d.member.get(`${d.ws}/runs/${runs[0]?.id}/tasks`)).body.tasks;
      expect(tasks).toEqual([expect.objectContaining({ key: 't1', state: 'succeeded' })]);
    });
  });
}
