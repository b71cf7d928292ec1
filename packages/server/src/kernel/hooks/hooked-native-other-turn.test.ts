import { afterEach, describe, expect, it, vi } from 'vitest';
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

/** Holds the native hook's next look at its call until the test opens the gate. */
const gate = vi.hoisted(() => {
  const state = {
    armed: false,
    reached: Promise.resolve(),
    opened: Promise.resolve(),
    reach: () => {},
    open: () => {},
    /** Holds the next look: `reached` resolves when it comes, `open()` lets it on. */
    arm() {
      state.armed = true;
      state.reached = new Promise<void>((resolve) => {
        state.reach = resolve;
      });
      state.opened = new Promise<void>((resolve) => {
        state.open = resolve;
      });
    },
  };
  return state;
});

vi.mock('../../store/accounts.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../store/accounts.js')>();
  return {
    ...actual,
    // Read by the native endpoint before each look after its first: the gate holds the first one.
    credentialIsActive: async (...args: Parameters<typeof actual.credentialIsActive>) => {
      if (gate.armed) {
        gate.armed = false;
        gate.reach();
        await gate.opened;
      }
      return actual.credentialIsActive(...args);
    },
  };
});

const all = await backends();

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `a native look answered about another turn (${backend.name})`,
    () => {
      let d: Deployment;
      afterEach(async () => {
        gate.open();
        await d?.close();
      });

      it('refuses its own call and gives the other row its grant back', async () => {
        d = await deploy(backend);
        await d.agent.put('/agent_api/v1/profile/configuration', { approval_mode: 'ask' });
        gate.arm();
        const held = fetch(`${d.url}/agent_api/v1/hooks/claude-code/wait-30000`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${d.tokens.agent}`,
            'content-type': 'application/json',
          },
          body: JSON.stringify({
            hook_event_name: 'PreToolUse',
            session_id: 's-1',
            tool_name: 'Bash',
            tool_input: { command: 'git push origin main' },
            tool_use_id: 'tu-1',
          }),
        });
        // A failed assertion below closes the kernel under the held request: that is no second failure.
        held.catch(() => undefined);
        await gate.reached;
        const runs = (await d.member.get(`${d.ws}/runs`)).body.runs as { id: string }[];
        expect(runs).toHaveLength(1);
        const first = runs[0]?.id as string;
        expect((await d.member.post(`${d.ws}/runs/${first}/stop`, {})).status).toBe(200);
        // The session's next turn parks the identical call under the same key, and a member approves it.
        const parked = await postHookEvent(d, bashPreTool('git push origin main', 'tu-2'));
        expect(parked.body).toMatchObject({ verdict: 'wait', task_key: 't1' });
        const second = parked.body.run_id as string;
        expect(second).not.toBe(first);
        const task = `${d.ws}/runs/${second}/tasks/t1`;
        expect((await d.member.post(`${task}/approve`, {})).status).toBe(200);

        gate.open();
        const answer = await (await held).json();
        expect(answer.hookSpecificOutput).toMatchObject({ permissionDecision: 'deny' });
        expect((await d.member.get(task)).body).toMatchObject({ state: 'runnable' });
        const retry = await postHookEvent(d, {
          ...bashPreTool('git push origin main', 'tu-2'),
          task_key: 't1',
        });
        expect(retry.body).toMatchObject({
          verdict: 'allow',
          run_id: second,
          task_state: 'claimed',
        });
      });
    },
  );
}
