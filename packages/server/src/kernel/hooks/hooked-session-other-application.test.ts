import { afterEach, describe, expect, it } from 'vitest';
import { type Client, client, type Deployment, deploy } from '../../testing/harness.js';
import { HOOK_EVENTS_PATH } from '../../testing/hooked-events.js';
import { backends } from '../../testing/stores.js';

/**
 * A hook payload's session_id is the agent's own, and two applications' agents may send the
 * same one (a copied transcript, a guessed id): each application's events go to its own
 * session. Another application's report, stop or look under the same session_id and call id
 * neither joins nor closes the first one's call.
 */

const available = (await backends()).filter((backend) => backend.skip === null);

describe.each(available)(
  "another application's events under the same session_id ($name)",
  (backend) => {
    let d: Deployment;
    afterEach(async () => {
      await d?.close();
    });

    it('open a session of their own, and leave the first application’s call as it was', async () => {
      d = await deploy(backend);
      const other = await d.member.post(`${d.ws}/agent_applications`, { name: 'other' });
      const token = await d.member.post(`${d.ws}/credentials`, {
        kind: 'agent',
        agent_application_id: other.body.id,
      });
      const otherAgent: Client = client(d.url, token.body.token);
      const rules = { approval_mode: 'rules', approval_rules: [{ tool: '*', verdict: 'allow' }] };
      await d.agent.put('/agent_api/v1/profile/configuration', rules);
      await otherAgent.put('/agent_api/v1/profile/configuration', rules);
      const event = (body: Record<string, unknown>) => ({
        agent: 'claude-code',
        session_id: 'shared-session',
        ...body,
      });
      const call = {
        tool_name: 'Bash',
        tool_input: { command: 'make deploy' },
        tool_use_id: 'tu-1',
      };
      const granted = await d.agent.post(HOOK_EVENTS_PATH, event({ event: 'pre_tool', ...call }));
      expect(granted.body).toMatchObject({ verdict: 'allow', task_state: 'claimed' });

      // The other application looks at, reports and stops "the same" call and session.
      const look = await otherAgent.post(
        HOOK_EVENTS_PATH,
        event({ event: 'pre_tool', look: true, ...call }),
      );
      expect(look.body.error?.code).toBe('task_not_found');
      const report = await otherAgent.post(
        HOOK_EVENTS_PATH,
        event({ event: 'post_tool', ...call, outcome: 'failed', output: 'forged' }),
      );
      expect(report.status).toBe(200);
      expect(report.body.conversation_id).not.toBe(granted.body.conversation_id);
      expect(report.body.run_id).not.toBe(granted.body.run_id);
      const stopped = await otherAgent.post(HOOK_EVENTS_PATH, event({ event: 'stop', text: 'x' }));
      expect(stopped.status).toBe(200);

      // The first application's call still waits for its own report, untouched.
      const row = await d.member.get(`${d.ws}/runs/${granted.body.run_id}/tasks/t1`);
      expect(row.body).toMatchObject({ state: 'claimed', result: null, error: null });
      const own = await d.agent.post(
        HOOK_EVENTS_PATH,
        event({ event: 'post_tool', ...call, outcome: 'succeeded', output: 'deployed' }),
      );
      expect(own.body.run_id).toBe(granted.body.run_id);
      const ran = await d.member.get(`${d.ws}/runs/${granted.body.run_id}/tasks/t1`);
      expect(ran.body.state).toBe('succeeded');
      expect(ran.body.result.content[0].text).toBe('deployed');
    });
  },
);
