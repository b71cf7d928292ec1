import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { LiveSocket } from './socket.js';

/** Polls until a check holds; fails after ten seconds. */
async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A LiveSocket against a WebSocket server on loopback that says `ready`, then one message. */
describe('a live socket whose reader throws', () => {
  let server: Server;
  let sockets: WebSocketServer;
  let url: string;
  const crashes: unknown[] = [];
  const onCrash = (error: unknown) => crashes.push(error);
  const rejections: unknown[] = [];
  const onRejection = (reason: unknown) => rejections.push(reason);

  beforeAll(async () => {
    server = createServer();
    sockets = new WebSocketServer({ server });
    sockets.on('connection', (socket) => {
      socket.send('{"type":"ready","after":0}');
      socket.send('{"type":"work_available","seq":1}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
    process.on('uncaughtException', onCrash);
    process.on('unhandledRejection', onRejection);
  });
  afterAll(async () => {
    process.off('uncaughtException', onCrash);
    process.off('unhandledRejection', onRejection);
    for (const client of sockets.clients) client.terminate();
    sockets.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('ends the socket with the thrown error instead of throwing out of the message listener', async () => {
    const thrown = new Error('the reader could not take this message');
    const statuses: string[] = [];
    const fatal: Error[] = [];
    new LiveSocket({
      url: () => url,
      onMessage: (message) => {
        if (message.type === 'work_available') throw thrown;
      },
      onStatus: (status) => statuses.push(status),
      onFatal: (error) => fatal.push(error),
    }).start();
    await until(
      () => fatal.length + crashes.length > 0,
      'the socket to fail (or the throw to escape)',
    );
    expect(fatal).toEqual([thrown]);
    expect(statuses.at(-1)).toBe('closed');
    expect(crashes).toEqual([]);
  });

  it.each(['connecting', 'open'])(
    'ends the socket with what its status listener threw on %s, never as an unhandled rejection',
    async (failing) => {
      rejections.length = 0;
      const thrown = new Error(`the status listener broke on ${failing}`);
      const fatal: Error[] = [];
      const socket = new LiveSocket({
        url: () => url,
        onMessage: () => {},
        onStatus: (status) => {
          if (status === failing) throw thrown;
        },
        onFatal: (error) => fatal.push(error),
      });
      socket.start();
      // A turn of the event loop or two for a rejection to be reported as unhandled.
      await until(
        () => fatal.length + crashes.length + rejections.length > 0,
        'the socket to fail (or the throw to escape)',
      );
      await new Promise((resolve) => setTimeout(resolve, 50));
      socket.close();
      expect(rejections).toEqual([]);
      expect(crashes).toEqual([]);
      expect(fatal).toEqual([thrown]);
    },
  );
});

/**
 * A WebSocket class whose constructor throws: a browser's SecurityError for a
 * `ws:` URL from an `https:` page, or an injected class that refuses the URL.
 */
describe('a live socket whose WebSocket cannot be made', () => {
  it('fails with what the constructor threw, never as an unhandled rejection, and makes no second try', async () => {
    const rejections: unknown[] = [];
    const onRejection = (reason: unknown) => rejections.push(reason);
    process.on('unhandledRejection', onRejection);
    const refused = new Error('The operation is insecure.');
    let made = 0;
    class RefusingSocket {
      constructor() {
        made += 1;
        throw refused;
      }
    }
    const fatal: Error[] = [];
    const statuses: string[] = [];
    try {
      new LiveSocket({
        url: () => 'ws://127.0.0.1:9/feed',
        WebSocket: RefusingSocket as never,
        onMessage: () => {},
        onStatus: (status) => statuses.push(status),
        onFatal: (error) => fatal.push(error),
      }).start();
      await until(() => fatal.length + rejections.length > 0, 'the socket to fail');
      // The rejection of a promise nobody awaits is reported after the turn it settled in.
      await new Promise((resolve) => setImmediate(resolve));
      expect(rejections).toEqual([]);
      expect(fatal).toEqual([refused]);
      expect(made).toBe(1);
      expect(statuses).toEqual(['connecting', 'closed']);
    } finally {
      process.off('unhandledRejection', onRejection);
    }
  });
});
