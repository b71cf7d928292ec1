import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { createClient } from './client.js';
import type { SocketStatus } from './internal/socket.js';

/** A fake kernel whose feed sends large events; a reader that does not read should pause it. */
describe('a feed of large events nobody reads yet', () => {
  const EVENTS = 40;
  const DATA = 'x'.repeat(1024 * 1024);
  let server: Server;
  let sockets: WebSocketServer;
  let url: string;
  const resumedAfter: string[] = [];

  beforeAll(async () => {
    server = createServer();
    sockets = new WebSocketServer({ server });
    sockets.on('connection', (socket, request) => {
      const after = Number(new URL(request.url ?? '/', 'http://x').searchParams.get('after'));
      resumedAfter.push(String(after));
      socket.send(JSON.stringify({ type: 'ready', after }));
      for (let seq = after + 1; seq <= EVENTS; seq += 1) {
        const event = { seq, type: 'run.created', run_id: 'run_1', data: { blob: DATA } };
        socket.send(JSON.stringify({ type: 'event', event }));
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const client of sockets.clients) client.terminate();
    sockets.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('pauses once the unread events pass highWaterBytes, then resumes after the last one read', async () => {
    const statuses: SocketStatus[] = [];
    let paused: () => void = () => {};
    const pausedOnce = new Promise<void>((resolve) => {
      paused = resolve;
    });
    const feed = createClient({ url, token: 'alk_member_test' })
      .workspace('ws_1')
      .feed({
        highWaterBytes: 8 * 1024 * 1024,
        onStatus: (status) => {
          statuses.push(status);
          if (status === 'paused') paused();
        },
      });
    try {
      await pausedOnce;
      const seqs: number[] = [];
      for await (const event of feed) {
        seqs.push(event.seq);
        if (event.seq === EVENTS) break;
      }
      expect(seqs).toEqual(Array.from({ length: EVENTS }, (_, n) => n + 1));
      // It paused with about 8 events of 1 MiB unread, and resumed after the last of them.
      expect(resumedAfter[0]).toBe('0');
      expect(Number(resumedAfter[1])).toBeGreaterThanOrEqual(7);
      expect(Number(resumedAfter[1])).toBeLessThan(EVENTS);
    } finally {
      feed.close();
    }
  });
});
