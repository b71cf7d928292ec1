import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type Deployment, sharedKernels, waitFor } from '../testing/harness.js';
import { connect, type Socket } from '../testing/sockets.js';
import { backends } from '../testing/stores.js';

const all = await backends();

const parkTwo = {
  approval_mode: 'ask',
  input: 'x',
  provider: {
    kind: 'scripted',
    rounds: [{ tool_calls: [{ name: 'a' }, { name: 'b' }] }, { final: 'f' }],
  },
};

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `lifecycle feed and executor cable (${backend.name})`,
    () => {
      let d: Deployment;
      const kernels = sharedKernels();
      afterAll(() => kernels.close());
      const sockets: Socket[] = [];
      afterEach(async () => {
        for (const socket of sockets.splice(0)) socket.close();
        await d?.close();
      });

      it('streams a run, and a client resuming from a sequence number misses nothing', async () => {
        d = await kernels.deploy(backend);
        const run = (await d.agent.post(`${d.ws}/runs`, parkTwo)).body;
        const feed = await connect(
          `${d.url}${d.ws}/feed?run_id=${run.id}&after=0`,
          d.tokens.member,
        );
        sockets.push(feed);
        const attention = await waitFor(async () =>
          feed.messages.find(
            (m) => m.type === 'event' && m.event.type === 'run.attention_required',
          ),
        );
        expect(attention.event.data).toEqual({
          reason: 'approval_required',
          blocked_task_keys: ['t1', 't2'],
        });
        const lastSeen = feed.messages.at(-1)!.event.seq as number;
        feed.close();
        await d.member.post(`${d.ws}/runs/${run.id}/tasks/t1/approve`);
        await d.member.post(`${d.ws}/runs/${run.id}/tasks/t2/deny`, { reason: 'no' });
        const resumed = await connect(
          `${d.url}${d.ws}/feed?run_id=${run.id}&after=${lastSeen}`,
          d.tokens.member,
        );
        sockets.push(resumed);
        await waitFor(async () => resumed.messages.some((m) => m.event?.type === 'task.denied'));
        const events = resumed.messages.filter((m) => m.type === 'event').map((m) => m.event);
        expect(events[0].seq).toBe(lastSeen + 1);
        for (let i = 1; i < events.length; i += 1)
          expect(events[i].seq).toBeGreaterThan(events[i - 1].seq);
        expect(events.map((e) => e.type)).toEqual(
          expect.arrayContaining(['task.approved', 'task.denied']),
        );
        const approved = events.find((e) => e.type === 'task.approved');
        expect(approved.principal).toMatch(/^member:/);
      });

      it('after=latest starts at the head the ready message names, skipping history', async () => {
        d = await kernels.deploy(backend);
        const first = (await d.agent.post(`${d.ws}/runs`, parkTwo)).body;
        await waitFor(
          async () => (await d.member.get(`${d.ws}/decisions`)).body.decisions.length === 2,
        );
        const feed = await connect(`${d.url}${d.ws}/feed?after=latest`, d.tokens.member);
        sockets.push(feed);
        const ready = await waitFor(async () => feed.messages.find((m) => m.type === 'ready'));
        expect(ready.after).toBeGreaterThan(0);
        await d.member.post(`${d.ws}/runs/${first.id}/tasks/t1/approve`);
        await waitFor(async () => feed.messages.some((m) => m.event?.type === 'task.approved'));
        const events = feed.messages.filter((m) => m.type === 'event').map((m) => m.event);
        expect(events[0].seq).toBe(ready.after + 1);
        expect(events.map((e) => e.type)).not.toContain('task.parked');
        // Decimal digits or latest, once: not what Number() would also read.
        for (const query of [
          'after=soon',
          'after=1e3',
          'after=0x10',
          'after=%203',
          'after=1&after=2',
        ]) {
          await expect(
            connect(`${d.url}${d.ws}/feed?${query}`, d.tokens.member),
            query,
          ).rejects.toThrow('status 400');
        }
      });

      it('nudges executors with work_available for approvals and for runnable rows', async () => {
        d = await kernels.deploy(backend);
        const cable = await connect(`${d.url}/executor_api/v1/cable`, d.tokens.executor);
        sockets.push(cable);
        const run = (await d.agent.post(`${d.ws}/runs`, parkTwo)).body;
        await waitFor(async () => cable.messages.filter((m) => m.kind === 'approval').length === 2);
        await d.member.post(`${d.ws}/runs/${run.id}/tasks/t2/approve`);
        const tool = await waitFor(async () => cable.messages.find((m) => m.kind === 'tool'));
        expect(tool).toMatchObject({ type: 'work_available', run_id: run.id, task_key: 't2' });
      });

      it('refuses a socket parameter it does not read, which would leave the socket unfiltered', async () => {
        d = await kernels.deploy(backend);
        const run = (await d.agent.post(`${d.ws}/runs`, parkTwo)).body;
        // A misspelt run filter would stream the whole workspace; a cable follows no run.
        for (const path of [
          `${d.ws}/feed?runid=${run.id}`,
          `${d.ws}/feed?after_seq=5`,
          `/executor_api/v1/cable?run_id=${run.id}`,
        ]) {
          const token = path.startsWith('/executor') ? d.tokens.executor : d.tokens.member;
          await expect(connect(`${d.url}${path}`, token), path).rejects.toThrow('status 400');
        }
        const feed = await connect(
          `${d.url}${d.ws}/feed?run_id=${run.id}&after=0`,
          d.tokens.member,
        );
        sockets.push(feed);
        await waitFor(async () => feed.messages.some((m) => m.type === 'event'));
      });

      it('refuses a socket with a credential of the wrong plane', async () => {
        d = await kernels.deploy(backend);
        await expect(connect(`${d.url}${d.ws}/feed`, d.tokens.executor)).rejects.toThrow(
          'status 403',
        );
        await expect(connect(`${d.url}/executor_api/v1/cable`, d.tokens.member)).rejects.toThrow(
          'status 403',
        );
        await expect(connect(`${d.url}/executor_api/v1/cable`, 'nope')).rejects.toThrow(
          'status 401',
        );
      });
    },
  );
}
