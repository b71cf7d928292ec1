import { afterEach, describe, expect, it } from 'vitest';
import { peekRun } from '../store/runs.js';
import { type Deployment, deploy } from '../testing/harness.js';
import { bashPreTool, postHookEvent } from '../testing/hooked-events.js';
import { backends } from '../testing/stores.js';

/**
 * What a call of a hooked session costs the store: the check and the report
 * each commit once, and the run's model turn is held for its agent in the
 * report's transaction (no drive of its own afterwards).
 */

const all = await backends();
const PROFILE = '/agent_api/v1/profile/configuration';
const RULES = [{ tool: 'Bash', path: 'command', match: 'ls*', verdict: 'allow' }];

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`hooked calls and COMMITs (${backend.name})`, () => {
    let d: Deployment;
    afterEach(async () => {
      await d?.close();
    });

    const event = (body: Record<string, unknown>) => postHookEvent(d, body);
    const bash = bashPreTool;

    it('a granted call costs two COMMITs, the check and the report: the run waits for its agent in the second', async () => {
      d = await deploy(backend);
      await d.agent.put(PROFILE, { approval_mode: 'rules', approval_rules: RULES });
      const commits = async () => {
        const response = await fetch(`${d.url}/metrics`, {
          headers: { authorization: `Bearer ${d.tokens.member}` },
        });
        const count = /^airlock_store_commit_seconds_count (\d+)$/m.exec(await response.text());
        return Number(count?.[1]);
      };
      const callAndReport = async (id: string) => {
        const granted = await event(bash('ls -la', id));
        expect(granted.body).toMatchObject({ verdict: 'allow', task_state: 'claimed' });
        const ran = await event({
          event: 'post_tool',
          tool_name: 'Bash',
          tool_input: { command: 'ls -la' },
          tool_use_id: id,
          outcome: 'succeeded',
          output: '.',
        });
        expect(ran.body).toMatchObject({ verdict: 'ack', task_state: 'succeeded' });
        return granted.body.run_id as string;
      };
      // The first call opens the session's turn (its own commits).
      const runId = await callAndReport('tu-0');
      // Whatever the kernel does after an answer (a drive of the run) has committed by the next sweeps.
      const settled = async () => {
        await new Promise((resolve) => setTimeout(resolve, 400));
        return commits();
      };
      const before = await settled();
      expect(before).toBeGreaterThan(0);
      for (const id of ['tu-1', 'tu-2', 'tu-3']) await callAndReport(id);
      expect((await settled()) - before).toBe(6);
      // The run's model turn is held for the agent: the resume sweep passes it by.
      const run = await peekRun(d.airlock.store, runId);
      expect(run).toMatchObject({ phase: 'model', model_lease_owner: 'client' });
    });
  });
}
