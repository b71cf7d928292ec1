import { createServer } from 'node:http';
import type { Duplex } from 'node:stream';
import { expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { textFrame } from './websocket-frame.js';

it('builds frames a real WebSocket client reads, at every length encoding', async () => {
  const texts = [
    '',
    'a',
    'é'.repeat(62),
    'x'.repeat(125),
    'y'.repeat(126),
    'z'.repeat(65535),
    'w'.repeat(70_000),
  ];
  const server = createServer();
  const wss = new WebSocketServer({ server, perMessageDeflate: false });
  wss.on('connection', (socket) => {
    const raw = (socket as unknown as { _socket: Duplex })._socket;
    raw.write(Buffer.concat(texts.map(textFrame)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  const client = new WebSocket(`ws://127.0.0.1:${address.port}`);
  const received: string[] = [];
  await new Promise<void>((resolve, reject) => {
    client.on('message', (data, isBinary) => {
      expect(isBinary).toBe(false);
      received.push(String(data));
      if (received.length === texts.length) resolve();
    });
    client.on('error', reject);
  });
  client.close();
  wss.close();
  server.close();
  expect(received).toEqual(texts);
  expect(textFrame('y'.repeat(126)).subarray(0, 4)).toEqual(Buffer.from([0x81, 126, 0, 126]));
});
