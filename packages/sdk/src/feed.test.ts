import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { createClient } from './client.js';
import { isServerError } from './errors.js';
import type { FeedOptions } from './feed.js';

/**
 * Feed frames outside the feed's contract: no real kernel sends them, so a
 * small fake kernel on loopback does (a `ready`, then the frames of the test).
 */
describe('a feed frame the SDK cannot read', () => {
  let server: Server;
  let sockets: WebSocketServer;
  let url: string;
  /** What the next connection is sent after its `ready`. */
  let frames: string[] = [];
  let ready = '{"type":"ready","after":0}';
  const crashes: unknown[] = [];
  const onCrash = (error: unknown) => crashes.push(error);

  beforeAll(async () => {
    server = createServer((_request, response) => {
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end('{"error":{"code":"not_found","detail":"no such route"}}');
    });
    sockets = new WebSocketServer({ server });
    sockets.on('connection', (socket) => {
      socket.send(ready);
      for (const frame of frames) socket.send(frame);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    process.on('uncaughtException', onCrash);
  });
  afterEach(() => {
    crashes.length = 0;
    ready = '{"type":"ready","after":0}';
  });
  afterAll(async () => {
    process.off('uncaughtException', onCrash);
    for (const client of sockets.clients) client.terminate();
    sockets.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const feed = (options: FeedOptions = {}) =>
    createClient({ url, token: 'alk_member_test' }).workspace('ws_1').feed(options);

  const event = (seq: unknown) =>
    JSON.stringify({
      type: 'event',
      event: { seq, type: 'run.created', run_id: 'run_1', data: {}, at: 0 },
    });

  it.each([
    ['with no event', '{"type":"event"}'],
    ['with a null event', '{"type":"event","event":null}'],
    ['whose event has no seq', event(undefined)],
    ['whose event seq is text', event('7')],
  ])(
    'an event frame %s ends the subscription with a ServerError, the process lives on',
    async (_name, frame) => {
      frames = [event(1), frame, event(3)];
      const subscription = feed();
      const first = await subscription.next();
      expect(first.value).toMatchObject({ seq: 1 });
      const failure = await subscription.next().then(
        () => null,
        (error: unknown) => error,
      );
      expect(isServerError(failure)).toBe(true);
      expect(failure).toMatchObject({ code: 'internal' });
      expect((failure as Error).message).toContain('sequence number');
      // The event after the frame is never delivered: the subscription ended there.
      await expect(subscription.next()).rejects.toBe(failure);
      expect(crashes).toEqual([]);
    },
  );

  it("a ready frame with no position fails a feed that starts at the head, instead of resuming after 'undefined'", async () => {
    ready = '{"type":"ready"}';
    frames = [event(4)];
    const subscription = feed({ after: 'latest' });
    await expect(subscription.next()).rejects.toMatchObject({ code: 'internal' });
    expect(crashes).toEqual([]);
  });

  it('hands calls of next() made before the earlier ones settled an event each, in order', async () => {
    frames = [event(1), event(2)];
    const subscription = feed();
    const first = subscription.next();
    const second = subscription.next();
    expect((await second).value).toMatchObject({ seq: 2 });
    expect((await first).value).toMatchObject({ seq: 1 });
    // Two more wait for events that never come: closing ends both, none is left pending.
    const third = subscription.next();
    const fourth = subscription.next();
    subscription.close();
    await fourth;
    expect(await Promise.race([third, Promise.resolve('still pending')])).toEqual({
      value: undefined,
      done: true,
    });
  });
});
