import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { LiveSocket, type SocketStatus } from './socket.js';

/** Polls until a check holds; fails after ten seconds. */
async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A WebSocket server on loopback that hangs up on its first three connections, then says ready. */
describe("a live socket's status", () => {
  let server: Server;
  let sockets: WebSocketServer;
  let url: string;
  let connections = 0;

  beforeAll(async () => {
    server = createServer();
    sockets = new WebSocketServer({ server });
    sockets.on('connection', (socket) => {
      connections += 1;
      if (connections <= 3) socket.close(1011, 'not yet');
      else socket.send('{"type":"ready","after":0}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const client of sockets.clients) client.terminate();
    sockets.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('is told once per change: one reconnecting for an outage of three failed tries, then open', async () => {
    const statuses: SocketStatus[] = [];
    const socket = new LiveSocket({
      url: () => url,
      retryMs: 5,
      onMessage: () => {},
      onStatus: (status) => statuses.push(status),
      onFatal: (error) => {
        throw error;
      },
    });
    socket.start();
    await until(() => statuses.includes('open'), 'the fourth connection to open');
    socket.close();
    expect(connections).toBe(4);
    expect(statuses).toEqual(['connecting', 'reconnecting', 'open', 'closed']);
  });
});
