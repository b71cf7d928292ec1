import { afterEach, describe, expect, it } from 'vitest';
import { type Client, client, type Deployment, deploy, waitFor } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const available = (await backends()).filter((backend) => backend.skip === null);

/** What a refusal says with the run id it names put as `<run>`. */
function said(
  answer: { status: number; body: { error?: { code: string; detail: string } } },
  run: string,
) {
  const error = answer.body.error;
  return {
    status: answer.status,
    code: error?.code,
    detail: error?.detail.split(run).join('<run>'),
  };
}

/*
 * A hooked agent's pre_tool asking about a call again names the call's run
 * (`run_id` beside `task_key`). Naming another agent application's run was
 * answered 404 run_not_found by the API's run fence, a code hooks.event does
 * not declare, where a run id nobody holds is answered task_not_found: an
 * agent learnt which run ids another application holds. Both now answer as
 * a run that is no turn of the caller's session.
 */
describe.each(available)(
  "a hooked pre_tool naming another application's run ($name)",
  (backend) => {
    let d: Deployment;
    afterEach(async () => {
      await d?.close();
    });

    it('is answered as a run id nobody holds, over REST and tRPC', async () => {
      // validateOutputs off: an undeclared code is answered as the kernel would in production.
      d = await deploy(backend, { validateOutputs: false });
      const other = await d.member.post(`${d.ws}/agent_applications`, { name: 'other' });
      const token = await d.member.post(`${d.ws}/credentials`, {
        kind: 'agent',
        agent_application_id: other.body.id,
      });
      const otherAgent: Client = client(d.url, token.body.token);
      const parked = await d.agent.post(`${d.ws}/runs`, {
        approval_mode: 'ask',
        input: 'x',
        provider: {
          kind: 'scripted',
          rounds: [{ tool_calls: [{ name: 'deploy' }] }, { final: 'f' }],
        },
      });
      const runId: string = parked.body.id;
      await waitFor(
        async () =>
          (await d.member.get(`${d.ws}/runs/${runId}/tasks/t1`)).body.state === 'needs_approval',
      );
      const madeUp = `run_${'0'.repeat(runId.length - 4)}`;
      for (const look of [true, false]) {
        const ask = (run: string) => ({
          agent: 'claude-code',
          session_id: 'other-session',
          event: 'pre_tool',
          run_id: run,
          task_key: 't1',
          tool_name: 'deploy',
          ...(look ? { look } : {}),
        });
        const rest = async (run: string) =>
          said(await otherAgent.post('/agent_api/v1/hooks/events', ask(run)), run);
        const trpc = async (run: string) => {
          const response = await fetch(`${d.url}/trpc/hooks.event`, {
            method: 'POST',
            headers: {
              authorization: `Bearer ${token.body.token}`,
              'content-type': 'application/json',
            },
            body: JSON.stringify(ask(run)),
          });
          const body = (await response.json()) as {
            error: { data: { error: { code: string; detail: string } } };
          };
          return said({ status: response.status, body: { error: body.error.data.error } }, run);
        };
        for (const call of [rest, trpc]) {
          const real = await call(runId);
          expect(real).toMatchObject({ status: 404, code: 'task_not_found' });
          expect(real).toEqual(await call(madeUp));
        }
      }
      expect((await d.member.get(`${d.ws}/runs/${runId}/tasks/t1`)).body.state).toBe(
        'needs_approval',
      );
    });
  },
);
