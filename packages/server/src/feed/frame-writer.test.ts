import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { afterEach, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { FeedItem } from './feed-item.js';
import { FrameWriter, MAX_BUFFERED } from './frame-writer.js';

function item(seq: number, text = 'x'): FeedItem {
  return new FeedItem({
    seq,
    run_id: 'run_1',
    task_key: null,
    type: 'task.created',
    data: JSON.stringify({ text }),
    principal: null,
    created_at: 1,
  });
}

const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

/** A real ws server and client on loopback; answers the server's side of the socket. */
async function connected(): Promise<{ server: WebSocket; client: WebSocket }> {
  const http = createServer();
  const wss = new WebSocketServer({ server: http, perMessageDeflate: false });
  const accepted = new Promise<WebSocket>((resolve) => wss.once('connection', resolve));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const client = new WebSocket(`ws://127.0.0.1:${(http.address() as AddressInfo).port}`);
  await new Promise((resolve, reject) => client.once('open', resolve).once('error', reject));
  const server = await accepted;
  closers.push(() => {
    client.terminate();
    wss.close();
    http.close();
  });
  return { server, client };
}

function countWrites(ws: WebSocket): () => number {
  const socket = (ws as unknown as { _socket: Duplex })._socket;
  const write = socket.write.bind(socket) as Duplex['write'];
  let writes = 0;
  socket.write = ((...args: Parameters<Duplex['write']>) => {
    writes += 1;
    return write(...args);
  }) as Duplex['write'];
  return () => writes;
}

it('writes every batch of one turn of the event loop as one write, in order, as text frames', async () => {
  const { server, client } = await connected();
  const writes = countWrites(server);
  const received: unknown[] = [];
  const all = new Promise<void>((resolve) =>
    client.on('message', (data, binary) => {
      expect(binary).toBe(false);
      received.push(JSON.parse(String(data)).event.seq);
      if (received.length === 6) resolve();
    }),
  );
  const writer = new FrameWriter(server, () => {
    throw new Error('not behind');
  });
  writer.push([item(1), item(2)]);
  writer.push([item(3)]);
  writer.push([item(4), item(5, 'y'.repeat(70_000))]);
  expect(writes()).toBe(0);
  await new Promise((resolve) => setImmediate(resolve));
  expect(writes()).toBe(1);
  // A later turn is a write of its own.
  writer.push([item(6)]);
  await all;
  expect(writes()).toBe(2);
  expect(received).toEqual([1, 2, 3, 4, 5, 6]);
});

it('drops a client that stops reading once more than MAX_BUFFERED waits unsent', async () => {
  const { server, client } = await connected();
  (client as unknown as { _socket: Duplex })._socket.pause();
  let dropped = 0;
  const writer = new FrameWriter(server, () => {
    dropped += 1;
  });
  const big = 'z'.repeat(1024 * 1024);
  for (let turn = 0; turn < 64 && dropped === 0; turn += 1) {
    writer.push([item(turn, big)]);
    await new Promise((resolve) => setImmediate(resolve));
  }
  expect(dropped).toBe(1);
  expect(server.bufferedAmount).toBeGreaterThan(MAX_BUFFERED);
});

it('writes nothing and throws nothing for a socket closed before its turn', async () => {
  const { server } = await connected();
  const writes = countWrites(server);
  const writer = new FrameWriter(server, () => {
    throw new Error('not behind');
  });
  writer.push([item(1)]);
  server.terminate();
  await new Promise((resolve) => setImmediate(resolve));
  expect(writes()).toBe(0);
});

it('drained() writes what waits and resolves once the client has read it all', async () => {
  const { server, client } = await connected();
  client.pause();
  let received = 0;
  client.on('message', () => {
    received += 1;
  });
  const writer = new FrameWriter(server, () => {
    throw new Error('not behind');
  });
  const big = 'z'.repeat(1024 * 1024);
  writer.push(Array.from({ length: 8 }, (_, i) => item(i + 1, big)));
  let settled = false;
  const drained = writer.drained().then((read) => {
    settled = true;
    return read;
  });
  // Written at once, not at the next turn: more than the operating system's buffers take.
  expect(server.bufferedAmount).toBeGreaterThan(0);
  await new Promise((resolve) => setImmediate(resolve));
  expect(settled).toBe(false);
  client.resume();
  // True: it waited, and the client read what waited.
  expect(await drained).toBe(true);
  expect(server.bufferedAmount).toBe(0);
  await new Promise<void>((resolve) => {
    const check = () => (received === 8 ? resolve() : setTimeout(check, 10));
    check();
  });
});

it('drained() resolves false when the socket closes before it drained', async () => {
  const { server, client } = await connected();
  client.pause();
  const writer = new FrameWriter(server, () => {
    throw new Error('not behind');
  });
  writer.push([item(1, 'z'.repeat(8 * 1024 * 1024))]);
  const drained = writer.drained();
  expect(server.bufferedAmount).toBeGreaterThan(0);
  server.terminate();
  expect(await drained).toBe(false);
  // Nothing waits on a closed socket.
  expect(await writer.drained()).toBe(false);
});
