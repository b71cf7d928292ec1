import { claudeCode, decide, type KernelAnswer } from '@airlock/hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from '../../testing/harness.js';
import { bashPreTool, HOOK_EVENTS_PATH, postHookEvent } from '../../testing/hooked-events.js';
import { backends } from '../../testing/stores.js';

/**
 * The Node.js hook client asks again about a parked call by the task key
 * and the run the kernel named. When the session's turn changed meanwhile
 * and the new turn holds an approved identical call under the same key, the
 * look is answered about the named run's row only (canceled with its turn):
 * the new turn's row is not granted to it, and stays for its own call.
 */

const all = await backends();
const ASK = { approval_mode: 'ask' };
const PUSH = 'git push origin main';

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `a neutral look asked about another turn (${backend.name})`,
    () => {
      let d: Deployment;
      afterEach(async () => {
        await d?.close();
      });

      it("is answered about its own run's row, and the new turn's row keeps its grant", async () => {
        d = await deploy(backend);
        await d.agent.put('/agent_api/v1/profile/configuration', ASK);
        let open = () => {};
        const opened = new Promise<void>((resolve) => {
          open = resolve;
        });
        let reach = () => {};
        const reached = new Promise<void>((resolve) => {
          reach = resolve;
        });
        let sends = 0;
        const held = decide(
          claudeCode,
          {
            agent: 'claude-code',
            session_id: 's-1',
            event: 'pre_tool',
            tool_name: 'Bash',
            tool_input: { command: PUSH },
            tool_use_id: 'tu-1',
          },
          {
            kernel: { url: '', token: '' },
            waitMs: 30_000,
            pollMs: 1,
            inboxUrl: null,
            send: async (body) => {
              if (sends++ === 1) {
                reach();
                await opened;
              }
              const answered = await d.agent.post(HOOK_EVENTS_PATH, body);
              if (answered.status !== 200) throw new Error(JSON.stringify(answered.body));
              return answered.body as KernelAnswer;
            },
          },
        );
        await reached;
        let task = '';
        let first = '';
        try {
          const runs = (await d.member.get(`${d.ws}/runs`)).body.runs as { id: string }[];
          expect(runs).toHaveLength(1);
          first = runs[0]?.id as string;
          expect((await d.member.post(`${d.ws}/runs/${first}/stop`, {})).status).toBe(200);
          const parked = await postHookEvent(d, bashPreTool(PUSH, 'tu-2'));
          expect(parked.body).toMatchObject({ verdict: 'wait', task_key: 't1' });
          expect(parked.body.run_id).not.toBe(first);
          task = `${d.ws}/runs/${parked.body.run_id}/tasks/t1`;
          expect((await d.member.post(`${task}/approve`, {})).status).toBe(200);
        } finally {
          open();
        }
        const reply = await held;
        expect(reply).toMatchObject({ kind: 'deny' });
        expect(reply.kind === 'deny' && reply.reason).toContain('canceled');
        // The new turn's row was never granted to the other call: its own call takes it.
        expect((await d.member.get(task)).body).toMatchObject({ state: 'runnable' });
        const own = await postHookEvent(d, { ...bashPreTool(PUSH, 'tu-2'), task_key: 't1' });
        expect(own.body).toMatchObject({ verdict: 'allow', task_state: 'claimed' });
      });

      it('refuses a run_id without its task_key or on another event, and a run of another session', async () => {
        d = await deploy(backend);
        await d.agent.put('/agent_api/v1/profile/configuration', ASK);
        const parked = await postHookEvent(d, bashPreTool(PUSH, 'tu-1'));
        const runId = parked.body.run_id as string;
        const bare = await postHookEvent(d, { ...bashPreTool(PUSH, 'tu-1'), run_id: runId });
        expect(bare.status).toBe(400);
        expect(bare.body.error.code).toBe('invalid_input');
        const onStop = await postHookEvent(d, { event: 'stop', task_key: 't1', run_id: runId });
        expect(onStop.status).toBe(400);
        expect(onStop.body.error.code).toBe('invalid_input');
        const stranger = await d.agent.post(HOOK_EVENTS_PATH, {
          ...bashPreTool(PUSH, 'tu-9'),
          agent: 'claude-code',
          session_id: 's-2',
          task_key: 't1',
          run_id: runId,
        });
        expect(stranger.status).toBe(404);
        expect(stranger.body.error.code).toBe('task_not_found');
        expect((await d.member.get(`${d.ws}/runs/${runId}/tasks/t1`)).body).toMatchObject({
          state: 'needs_approval',
        });
      });
    },
  );
}
