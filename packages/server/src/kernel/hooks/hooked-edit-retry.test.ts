import { codex, decide, gemini } from '@airlock/hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from '../../testing/harness.js';
import { backends } from '../../testing/stores.js';

/**
 * An agent that cannot run a person's edit in place of its model's input
 * (Codex, Gemini CLI) is refused the composed call with the edit named, and
 * told to make the call again with it: that call is granted against the
 * approval, once. Refusing the composed call must not spend the approval.
 */

const all = await backends();
const EVENTS = '/agent_api/v1/hooks/events';

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`an edit the agent runs itself (${backend.name})`, () => {
    let d: Deployment;
    afterEach(async () => {
      await d?.close();
    });

    it.each([
      ['codex', codex, 'tu-1', 'tu-2'],
      ['gemini', gemini, undefined, undefined],
    ] as const)(
      '%s: the call made again with the edit is granted once',
      async (agent, protocol, first, retry) => {
        d = await deploy(backend);
        await d.agent.put('/agent_api/v1/profile/configuration', {
          approval_mode: 'rules',
          approval_rules: [{ tool: 'Bash', path: 'command', match: 'git push*', verdict: 'ask' }],
        });
        const call = (command: string, id: string | undefined) => ({
          agent,
          session_id: 's-1',
          event: 'pre_tool' as const,
          tool_name: 'Bash',
          tool_input: { command },
          ...(id === undefined ? {} : { tool_use_id: id }),
        });
        const parked = await d.agent.post(EVENTS, call('git push origin main', first));
        expect(parked.body).toMatchObject({ verdict: 'wait', task_key: 't1' });
        const task = `${d.ws}/runs/${parked.body.run_id}/tasks/t1`;
        const edit = { command: 'git push origin dev' };
        expect((await d.member.post(`${task}/approve`, { tool_input: edit })).body.state).toBe(
          'runnable',
        );
        // The hook still waiting on the park asks again by its task key.
        const reply = await decide(
          protocol,
          { ...call('git push origin main', first), task_key: 't1' },
          {
            kernel: { url: d.url, token: d.tokens.agent },
            waitMs: 5000,
          },
        );
        expect(reply).toMatchObject({ kind: 'deny' });
        expect(reply.kind === 'deny' && reply.reason).toContain(JSON.stringify(edit));
        const again = await d.agent.post(EVENTS, call('git push origin dev', retry));
        expect(again.body).toMatchObject({
          verdict: 'allow',
          task_key: 't1',
          task_state: 'claimed',
        });
        const once = await d.agent.post(EVENTS, call('git push origin dev', 'tu-3'));
        expect(once.body).toMatchObject({ verdict: 'wait', task_key: 't2' });
      },
    );
  });
}
