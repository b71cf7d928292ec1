import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { createExecutor } from './executor.js';

/** Polls until a check holds; fails after ten seconds. */
async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * A cable nudge without a sequence number: no real kernel sends one, so a
 * small fake kernel on loopback does, then drops the cable to see where the
 * executor resumes.
 */
describe("an executor's cable told a nudge without a position", () => {
  let server: Server;
  let sockets: WebSocketServer;
  let url: string;
  /** The `after` each cable connection asked to resume from. */
  const resumedAfter: (string | null)[] = [];

  beforeAll(async () => {
    server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        const body = request.url?.startsWith('/trpc/')
          ? { result: { data: { items: [] } } }
          : { claim: null };
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify(body));
      });
    });
    sockets = new WebSocketServer({ server });
    sockets.on('connection', (socket, request) => {
      resumedAfter.push(new URL(request.url ?? '/', 'http://kernel').searchParams.get('after'));
      socket.send('{"type":"ready","after":5}');
      if (resumedAfter.length > 1) return;
      socket.send('{"type":"work_available","kind":"tool","run_id":"run_1","task_key":"t1"}');
      socket.close();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const client of sockets.clients) client.terminate();
    sockets.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('resumes after the last position it was told, not after NaN', async () => {
    const executor = createExecutor({ url, token: 'alk_executor_test', tools: { pay: () => 1 } });
    try {
      await until(() => resumedAfter.length >= 2, 'the cable to reconnect');
      expect(resumedAfter.slice(0, 2)).toEqual(['latest', '5']);
    } finally {
      await executor.close({ abort: true });
    }
  });
});
