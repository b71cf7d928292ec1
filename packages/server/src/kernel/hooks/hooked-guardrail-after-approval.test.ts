import { afterEach, describe, expect, it } from 'vitest';
import { type Deployment, deploy, putOverlay } from '../../testing/harness.js';
import { bashPreTool, postHookEvent } from '../../testing/hooked-events.js';
import { backends } from '../../testing/stores.js';

/**
 * A hooked agent runs its own calls: the kernel hands a granted row to the
 * agent on its pre_tool look instead of to an executor's claim. A call a
 * person approved before an admin wrote a guardrail that denies it must not
 * be handed out there either: the agent's look again (by the call made once
 * more, or by its task key) is refused with the guardrail's reason.
 */

const all = await backends();

/** An admin's guardrail refusing every push. */
const NO_PUSHES = [
  {
    ruleSetId: 'supervised',
    rules: [
      {
        verdict: 'deny',
        guardrail: true,
        tools: ['Bash'],
        argument_patterns: { '/command': 'git push*' },
        reason: 'pushes are frozen today',
      },
    ],
  },
];

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `a hooked call approved before a guardrail (${backend.name})`,
    () => {
      let d: Deployment;
      afterEach(async () => {
        await d?.close();
      });

      async function approvedThenGuarded(): Promise<string> {
        await d.agent.put('/agent_api/v1/profile/configuration', { approval_mode: 'ask' });
        const parked = await postHookEvent(d, bashPreTool('git push origin main', 'tu-1'));
        expect(parked.body).toMatchObject({ verdict: 'wait', task_key: 't1' });
        const task = `${d.ws}/runs/${parked.body.run_id as string}/tasks/t1`;
        expect((await d.member.post(`${task}/approve`, {})).status).toBe(200);
        const written = await putOverlay(d.member, `${d.ws}/overlays/user/me`, NO_PUSHES);
        expect(written.status).toBe(200);
        return task;
      }

      it('refuses the identical call made again, with the reason, and the row fails approval_denied', async () => {
        d = await deploy(backend);
        const task = await approvedThenGuarded();
        const retry = await postHookEvent(d, bashPreTool('git push origin main', 'tu-2'));
        expect(retry.body).toMatchObject({ verdict: 'deny', task_key: 't1' });
        expect(JSON.stringify(retry.body)).toContain('pushes are frozen today');
        const row = (await d.member.get(task)).body;
        expect(row).toMatchObject({ state: 'failed', error: { code: 'approval_denied' } });
        // The guardrail binds a new call at the stage as well (the check above is not the only one).
        const fresh = await postHookEvent(d, bashPreTool('git push origin dev', 'tu-3'));
        expect(fresh.body).toMatchObject({ verdict: 'deny', task_key: 't2' });
      });

      it('refuses the look again by task key', async () => {
        d = await deploy(backend);
        const task = await approvedThenGuarded();
        const look = await postHookEvent(d, {
          ...bashPreTool('git push origin main', 'tu-1'),
          task_key: 't1',
        });
        expect(look.body).toMatchObject({ verdict: 'deny', task_key: 't1' });
        expect(JSON.stringify(look.body)).toContain('pushes are frozen today');
        expect((await d.member.get(task)).body.state).toBe('failed');
      });
    },
  );
}
