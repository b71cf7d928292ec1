import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Deployment, deploy, waitFor } from '../testing/harness.js';
import { connect } from '../testing/sockets.js';
import { backends } from '../testing/stores.js';

const all = await backends();

// A store restored from an earlier backup numbers its new events from where the backup stood, so
// a reader that had passed those numbers before the restore would wait for the head to reach its
// position and never see them. A position the log never reached is refused with a resync.
for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `a reader resuming after a position the log never reached (${backend.name})`,
    () => {
      let d: Deployment;
      let runId: string;
      let head: number;
      beforeAll(async () => {
        d = await deploy(backend);
        const run = await d.agent.post(`${d.ws}/runs`, {
          approval_mode: 'ask',
          input: 'x',
          provider: { kind: 'scripted', rounds: [{ final: 'done' }] },
        });
        expect(run.status).toBe(201);
        runId = run.body.id;
        const events = await waitFor(async () => {
          const page = await d.member.get(`${d.ws}/runs/${runId}/events?after=0`);
          const listed = page.body.events as { type: string; seq: number }[];
          return listed.some((event) => event.type === 'run.completed') ? listed : null;
        });
        head = Math.max(...events.map((event) => event.seq));
      });
      afterAll(async () => {
        await d?.close();
      });

      it('the feed socket sends resync naming the head, then closes 4410', async () => {
        const socket = await connect(`${d.url}${d.ws}/feed?after=${head + 3}`, d.tokens.member);
        const { code } = await socket.closed;
        expect(code).toBe(4410);
        expect(socket.messages).toHaveLength(1);
        expect(socket.messages[0]).toMatchObject({
          type: 'resync',
          code: 'feed_position_pruned',
          after: head + 3,
        });
        expect(socket.messages[0]!.detail).toContain(
          `never written to this store (its last is ${head})`,
        );
        expect(socket.messages[0]!.detail).toContain(`after=${head}`);
        socket.close();
      });

      it('at the head itself the socket opens as before', async () => {
        const socket = await connect(`${d.url}${d.ws}/feed?after=${head}`, d.tokens.member);
        const ready = await waitFor(async () => socket.messages[0]);
        expect(ready).toEqual({ type: 'ready', after: head });
        socket.close();
      });

      it("a run's event listing answers 410 where it would list nothing", async () => {
        const listed = await d.member.get(`${d.ws}/runs/${runId}/events?after=${head + 1}`);
        expect(listed.status).toBe(410);
        expect(listed.body.error.code).toBe('feed_position_pruned');
        expect(listed.body.error.detail).toContain(`its last is ${head}`);
        const atHead = await d.member.get(`${d.ws}/runs/${runId}/events?after=${head}`);
        expect(atHead.status).toBe(200);
        expect(atHead.body.events).toEqual([]);
      });

      it('the tRPC subscription ends with the same code', async () => {
        const input = encodeURIComponent(
          JSON.stringify({ workspace_id: d.workspaceId, lastEventId: String(head + 2) }),
        );
        const answer = await fetch(`${d.url}/trpc/runs.feed?input=${input}`, {
          headers: { authorization: `Bearer ${d.tokens.member}`, accept: 'text/event-stream' },
        });
        const reader = (answer.body as ReadableStream<Uint8Array>).getReader();
        let text = '';
        while (!text.includes('feed_position_pruned')) {
          const { value, done } = await reader.read();
          if (done) break;
          text += new TextDecoder().decode(value);
        }
        await reader.cancel();
        expect(text).toContain('"code":"feed_position_pruned"');
        expect(text).toContain('never written to this store');
      });
    },
  );
}
