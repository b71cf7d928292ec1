import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type Deployment, sharedKernels, waitFor } from '../testing/harness.js';
import { bashPreTool, postHookEvent } from '../testing/hooked-events.js';
import { backends } from '../testing/stores.js';

const all = await backends();
const PROFILE = '/agent_api/v1/profile/configuration';

/**
 * A hooked session's calls are run by its agent, never by an executor: a
 * call a person approves after the agent's hook stopped waiting stays off
 * every executor's inbox and claims, and the agent's identical retry is
 * granted against that approval, once. The same holds for a call the agent
 * took whose lease lapsed without its post_tool.
 */

type Row = { key: string; state: string; tool_input: unknown };

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`hooked calls and executors (${backend.name})`, () => {
    let d: Deployment;
    const kernels = sharedKernels();
    afterAll(() => kernels.close());
    afterEach(async () => {
      await d?.close();
    });

    const event = (body: Record<string, unknown>) => postHookEvent(d, body);
    const tasksOf = async (runId: string) =>
      (await d.member.get(`${d.ws}/runs/${runId}/tasks`)).body.tasks as Row[];

    /** No executor sees or takes the run's rows: not on its inbox, not by claimNext, not by address. */
    async function expectNoExecutorTakes(runId: string, key: string) {
      const inbox = (await d.executor.get('/executor_api/v1/inbox')).body.items as {
        run_id: string;
      }[];
      expect(inbox.filter((item) => item.run_id === runId)).toEqual([]);
      for (const body of [{}, { tool_names: ['Bash'] }]) {
        const next = await d.executor.post('/executor_api/v1/claim', body);
        expect(next.status).toBe(200);
        expect(next.body.claim).toBeNull();
      }
      const direct = await d.executor.post(`/executor_api/v1/runs/${runId}/tasks/${key}/claim`);
      expect(direct.status).toBe(409);
      expect(direct.body.error.code).toBe('not_claimable_kind');
    }

    it('leaves a call approved after its hook gave up to the agent, granted once to its retry', async () => {
      d = await kernels.deploy(backend);
      await d.agent.put(PROFILE, { approval_mode: 'ask', approval_rules: [] });
      await event({ event: 'session_start' });
      const parked = await event(bashPreTool('make deploy', 'tu-1'));
      expect(parked.body).toMatchObject({ verdict: 'wait', task_state: 'needs_approval' });
      const runId = parked.body.run_id as string;
      const approved = await d.member.post(`${d.ws}/runs/${runId}/tasks/t1/approve`, {});
      expect(approved.body.state).toBe('runnable');

      await expectNoExecutorTakes(runId, 't1');

      const retry = await event(bashPreTool('make deploy', 'tu-2'));
      expect(retry.body).toMatchObject({ verdict: 'allow', task_key: 't1', task_state: 'claimed' });
      // Granted once: a further identical call is a new row that crosses the stage again.
      const again = await event(bashPreTool('make deploy', 'tu-3'));
      expect(again.body).toMatchObject({ verdict: 'wait', task_key: 't2' });
      expect((await tasksOf(runId)).map((row) => [row.key, row.state])).toEqual([
        ['t1', 'claimed'],
        ['t2', 'needs_approval'],
      ]);
    });

    it('keeps a call the agent took from executors once its lease lapses without post_tool', async () => {
      d = await kernels.deploy(backend, { maxLeaseMs: 300 });
      await d.agent.put(PROFILE, { approval_mode: 'bypass', approval_rules: [] });
      await event({ event: 'session_start' });
      const granted = await event(bashPreTool('make build', 'tu-1'));
      expect(granted.body).toMatchObject({ verdict: 'allow', task_state: 'claimed' });
      const runId = granted.body.run_id as string;
      // The agent may have run it: the row fails outcome_unknown, never runnable again.
      await waitFor(async () => (await tasksOf(runId))[0]?.state === 'failed', {
        what: 'the lease to lapse',
      });
      await expectNoExecutorTakes(runId, 't1');
    });

    it("leaves a kernel-driven turn of a hooked session's conversation to executors", async () => {
      d = await kernels.deploy(backend);
      await d.agent.put(PROFILE, { approval_mode: 'bypass', approval_rules: [] });
      const session = await event({ event: 'session_start' });
      const conversation = session.body.conversation_id as string;
      // A turn whose model is the kernel's provider: nobody but an executor runs its calls.
      const turn = await d.agent.post(`/agent_api/v1/conversations/${conversation}/inputs`, {
        input: 'list the files',
        provider: {
          kind: 'scripted',
          rounds: [{ tool_calls: [{ name: 'Bash', input: { command: 'ls' } }] }, { final: 'ok' }],
        },
      });
      expect(turn.status).toBe(201);
      const runId = turn.body.id as string;
      await waitFor(async () => (await tasksOf(runId))[0]?.state === 'runnable', {
        what: 'the scripted call to be granted',
      });
      const claimed = await d.executor.post('/executor_api/v1/claim', { tool_names: ['Bash'] });
      expect(claimed.body.claim?.task).toMatchObject({ run_id: runId, key: 't1' });
    });
  });
}
