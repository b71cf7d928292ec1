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
 * A cable resuming after a position the kernel no longer has (retention pruned
 * events after an idle executor's last nudge, or the store was restored from
 * an earlier backup) is told `resync` and closed with 4410, as a real kernel
 * does; a small fake kernel on loopback plays it. Resuming from the same
 * position would be refused for ever: the executor starts again at the head
 * and looks at its inbox, which it reads whole anyway.
 */
describe("an executor's cable told to resynchronise", () => {
  let server: Server;
  let sockets: WebSocketServer;
  let url: string;
  /** The `after` each cable connection asked to resume from. */
  const resumedAfter: (string | null)[] = [];
  let claims = 0;
  /** How many claims had been asked for when each cable connection came. */
  const claimsAtConnection: number[] = [];

  beforeAll(async () => {
    server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        if (!request.url?.startsWith('/trpc/')) claims += 1;
        const body = request.url?.startsWith('/trpc/')
          ? { result: { data: { items: [] } } }
          : { claim: null };
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify(body));
      });
    });
    sockets = new WebSocketServer({ server });
    sockets.on('connection', (socket, request) => {
      const after = new URL(request.url ?? '/', 'http://kernel').searchParams.get('after');
      resumedAfter.push(after);
      claimsAtConnection.push(claims);
      if (after === 'latest' && resumedAfter.length === 1) {
        // The first connection learns position 7, then drops (a kernel restart).
        socket.send('{"type":"ready","after":7}');
        socket.close(1001, 'the kernel is shutting down');
      } else if (after === 'latest') {
        socket.send('{"type":"ready","after":3}');
      } else {
        socket.send(
          JSON.stringify({
            type: 'resync',
            code: 'feed_position_pruned',
            detail: `events after ${after} were never written to this store`,
            after: Number(after),
          }),
        );
        socket.close(4410, 'feed_position_pruned');
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

  it('reconnects at the head instead of after the refused position, and drains its inbox', async () => {
    const executor = createExecutor({
      url,
      token: 'alk_executor_test',
      tools: { pay: () => 1 },
      pollMs: 3_600_000,
    });
    try {
      await until(() => resumedAfter.length >= 3, 'the cable to reconnect twice');
      expect(resumedAfter.slice(0, 3)).toEqual(['latest', '7', 'latest']);
      // The head's `ready` drains the inbox: whatever the refused position held is claimed.
      await until(() => claims > claimsAtConnection[2]!, 'a claim after the resync');
      expect(resumedAfter).toHaveLength(3);
    } finally {
      await executor.close({ abort: true });
    }
  });
});
