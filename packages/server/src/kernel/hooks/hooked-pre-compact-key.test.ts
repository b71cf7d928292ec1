import { afterEach, describe, expect, it } from 'vitest';
import { claimAndCommit, type Deployment, deploy } from '../../testing/harness.js';
import { bashPreTool, postHookEvent } from '../../testing/hooked-events.js';
import { backends } from '../../testing/stores.js';

/**
 * An agent's compaction waits on the profile's `pre_compact` hook and asks
 * again by the key the kernel named. A key of another row (a call's, a
 * missing one) is no such hook: it is refused `task_not_found`, never read
 * as a hook's answer ("lifecycle hook Bash failed (succeeded)").
 */

const all = await backends();

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `a pre_compact asked about by key (${backend.name})`,
    () => {
      let d: Deployment;
      afterEach(async () => {
        await d?.close();
      });

      it("answers its hook's decision, and refuses a key that is no pre_compact hook", async () => {
        d = await deploy(backend);
        await d.agent.put('/agent_api/v1/profile/configuration', {
          approval_mode: 'bypass',
          lifecycle_hooks: { pre_compact: { tool: 'compact_check', timeout_ms: 60_000 } },
        });
        const call = await postHookEvent(d, bashPreTool('ls', 'tu-1'));
        expect(call.body).toMatchObject({ verdict: 'allow', task_key: 't1' });
        const runId = call.body.run_id as string;

        const waiting = await postHookEvent(d, { event: 'pre_compact', trigger: 'auto' });
        expect(waiting.body).toMatchObject({ verdict: 'wait', task_key: 't2' });
        const committed = await claimAndCommit(d, runId, 't2', {
          outcome: 'succeeded',
          result: { structured_content: { continue: false } },
        });
        expect(committed.status).toBe(200);
        const decided = await postHookEvent(d, { event: 'pre_compact', task_key: 't2' });
        expect(decided.body).toMatchObject({ verdict: 'ack', task_key: 't2' });

        for (const key of ['t1', 't9']) {
          const other = await postHookEvent(d, { event: 'pre_compact', task_key: key });
          expect(other.status, key).toBe(404);
          expect(other.body.error.code, key).toBe('task_not_found');
        }
      });
    },
  );
}
