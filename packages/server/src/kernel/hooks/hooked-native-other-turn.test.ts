import { claudeCode } from '@airlock/hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { authenticateToken } from '../../api/access.js';
import { answerNatively } from '../../api/hooks.js';
import { type Deployment, deploy } from '../../testing/harness.js';
import { bashPreTool, postHookEvent } from '../../testing/hooked-events.js';
import { backends } from '../../testing/stores.js';

/**
 * A native hook request held on a park asks again by the task key the
 * kernel named. When the turn ends meanwhile and a new turn holds an
 * approved identical call under the same key, that look is answered about
 * the other turn's row: the hook refuses its own call (the answer is not
 * about it), and the grant the look took goes back to the other row at
 * once, so that row's own call is still granted once, not held until a
 * lapsed claim fails it `outcome_unknown`.
 */

const all = await backends();

/** Holds the held request's first look again until `open()`; `reached` resolves when it comes. */
function lookGate() {
  let reach = () => {};
  let open = () => {};
  const reached = new Promise<void>((resolve) => {
    reach = resolve;
  });
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  let held = false;
  const beforeLook = async () => {
    if (held) return;
    held = true;
    reach();
    await opened;
  };
  return { reached, open: () => open(), beforeLook };
}

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `a native look answered about another turn (${backend.name})`,
    () => {
      let d: Deployment;
      afterEach(async () => {
        await d?.close();
      });

      it('refuses its own call and gives the other row its grant back', async () => {
        d = await deploy(backend);
        await d.agent.put('/agent_api/v1/profile/configuration', { approval_mode: 'ask' });
        const gate = lookGate();
        const principal = await authenticateToken(d.airlock.kernel, d.tokens.agent);
        const held = answerNatively(claudeCode, { beforeLook: gate.beforeLook })(
          { kernel: d.airlock.kernel, principal },
          {
            hook_options: 'wait-30000',
            hook_event_name: 'PreToolUse',
            session_id: 's-1',
            tool_name: 'Bash',
            tool_input: { command: 'git push origin main' },
            tool_use_id: 'tu-1',
          },
        );
        // A failed assertion below leaves the request held: that is no second failure.
        held.catch(() => undefined);
        await gate.reached;
        let task = '';
        try {
          const runs = (await d.member.get(`${d.ws}/runs`)).body.runs as { id: string }[];
          expect(runs).toHaveLength(1);
          const first = runs[0]?.id as string;
          expect((await d.member.post(`${d.ws}/runs/${first}/stop`, {})).status).toBe(200);
          // The session's next turn parks the identical call under the same key; a member approves it.
          const parked = await postHookEvent(d, bashPreTool('git push origin main', 'tu-2'));
          expect(parked.body).toMatchObject({ verdict: 'wait', task_key: 't1' });
          expect(parked.body.run_id).not.toBe(first);
          task = `${d.ws}/runs/${parked.body.run_id}/tasks/t1`;
          expect((await d.member.post(`${task}/approve`, {})).status).toBe(200);
        } finally {
          gate.open();
        }
        const answer = (await held) as { hookSpecificOutput?: unknown };
        expect(answer.hookSpecificOutput).toMatchObject({ permissionDecision: 'deny' });
        expect((await d.member.get(task)).body).toMatchObject({ state: 'runnable' });
        const retry = await postHookEvent(d, {
          ...bashPreTool('git push origin main', 'tu-2'),
          task_key: 't1',
        });
        expect(retry.body).toMatchObject({ verdict: 'allow', task_state: 'claimed' });
      });
    },
  );
}
