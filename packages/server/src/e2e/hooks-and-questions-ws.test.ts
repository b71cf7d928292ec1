import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { listCredentials } from '../store/accounts.js';
import { type Deployment, sharedKernels, waitFor } from '../testing/harness.js';
import { connect, type Message, type Socket } from '../testing/sockets.js';
import { backends } from '../testing/stores.js';

const all = await backends();

function events(socket: Socket, type: string): Message[] {
  return socket.messages.filter((m) => m.type === 'event' && m.event.type === type);
}

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `hooks and questions over WebSocket (${backend.name})`,
    () => {
      let d: Deployment;
      const kernels = sharedKernels();
      afterAll(() => kernels.close());
      const sockets: Socket[] = [];
      afterEach(async () => {
        for (const socket of sockets.splice(0)) socket.close();
        await d?.close();
      });

      it('a question is announced awaiting_human on the feed and nudged as ask on the cable', async () => {
        d = await kernels.deploy(backend);
        const cable = await connect(`${d.url}/executor_api/v1/cable?after=0`, d.tokens.executor);
        const feed = await connect(`${d.url}${d.ws}/feed?after=0`, d.tokens.member);
        sockets.push(cable, feed);
        const run = (
          await d.agent.post(`${d.ws}/runs`, {
            approval_mode: 'ask',
            input: 'q',
            provider: {
              kind: 'scripted',
              rounds: [{ tool_calls: [{ name: 'ask', input: { prompt: 'ok?' } }] }, { final: 'f' }],
            },
          })
        ).body;
        const nudge = await waitFor(async () =>
          cable.messages.find((m) => m.type === 'work_available' && m.run_id === run.id),
        );
        expect(nudge).toMatchObject({ kind: 'ask', task_key: 't1' });
        const attention = await waitFor(async () => events(feed, 'run.attention_required')[0]);
        expect(attention.event.data).toEqual({
          reason: 'awaiting_human',
          blocked_task_keys: ['t1'],
        });
        await d.member.post(`${d.ws}/runs/${run.id}/tasks/t1/resolution`, { content: 'yes' });
        const done = await waitFor(async () => events(feed, 'run.completed')[0]);
        expect(done.event.data.final_answer).toBe('f');
      });

      it('a stop hook is nudged as hook; its failure is announced as a hold, never run.completed', async () => {
        d = await kernels.deploy(backend);
        const cable = await connect(`${d.url}/executor_api/v1/cable?after=0`, d.tokens.executor);
        const feed = await connect(`${d.url}${d.ws}/feed?after=0`, d.tokens.member);
        sockets.push(cable, feed);
        const run = (
          await d.member.post(`${d.ws}/runs`, {
            approval_mode: 'bypass',
            input: 'x',
            lifecycle_hooks: { stop: { tool: 'check', timeout_ms: 5000, max_continuations: 0 } },
            provider: { kind: 'scripted', rounds: [{ final: 'candidate' }] },
          })
        ).body;
        const nudge = await waitFor(async () =>
          cable.messages.find((m) => m.type === 'work_available' && m.run_id === run.id),
        );
        expect(nudge.kind).toBe('hook');
        const claim = await d.executor.post(
          `/executor_api/v1/runs/${run.id}/tasks/${nudge.task_key}/claim`,
        );
        await d.executor.post(`/executor_api/v1/runs/${run.id}/tasks/${nudge.task_key}/commit`, {
          claim_id: claim.body.claim_id,
          outcome: 'succeeded',
          result: { structured_content: { continue: true, feedback: 'one more' } },
        });
        const hold = await waitFor(async () =>
          events(feed, 'run.attention_required').find(
            (m) => m.event.data.reason === 'failure_hold',
          ),
        );
        expect(hold.event.data.blocked_task_keys).toEqual([nudge.task_key]);
        const failed = events(feed, 'task.failed').find((m) => m.event.task_key === nudge.task_key);
        expect(failed?.event.data.error.code).toBe('max_continuations_exceeded');
        expect(events(feed, 'run.completed')).toEqual([]);
      });

      it('revoking the executor streams task.readdressed and stops nudging it', async () => {
        d = await kernels.deploy(backend);
        const feed = await connect(`${d.url}${d.ws}/feed?after=0`, d.tokens.member);
        sockets.push(feed);
        const run = (
          await d.agent.post(`${d.ws}/runs`, {
            approval_mode: 'ask',
            input: 'x',
            provider: { kind: 'scripted', rounds: [{ tool_calls: [{ name: 'deploy' }] }] },
          })
        ).body;
        const executor = (await listCredentials(d.airlock.store, d.workspaceId)).find(
          (c) => c.kind === 'executor',
        )!;
        await d.member.post(`${d.ws}/credentials/${executor.credential_id}/revoke`);
        const moved = await waitFor(async () => events(feed, 'task.readdressed')[0]);
        expect(moved.event).toMatchObject({ run_id: run.id, task_key: 't1' });
        await expect(
          connect(`${d.url}/executor_api/v1/cable?after=0`, d.tokens.executor),
        ).rejects.toThrow('401');
      });
    },
  );
}
