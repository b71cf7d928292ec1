import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { WebhookChannelConfig } from './config.js';
import { sendWebhook } from './webhook.js';

const SECRET = `whsec_${Buffer.alloc(24, 7).toString('base64')}`;
/** Past this much written, the test cuts the attempt itself: the kernel was reading it all. */
const GIVE_UP_BYTES = 256 * 1024 * 1024;

const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

/**
 * A receiver that accepts the notice (200) and then answers with a body that never ends,
 * counting what it manages to write before the kernel closes the connection.
 */
async function endlessReceiver(onGiveUp: () => void) {
  const chunk = Buffer.alloc(1 << 20, 97);
  const state = { written: 0, closed: false };
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.on('close', () => {
        state.closed = true;
      });
      const write = () => {
        while (!res.destroyed) {
          if (state.written >= GIVE_UP_BYTES) return onGiveUp();
          state.written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', write);
        }
      };
      write();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  closers.push(() => server.close());
  server.on('connection', (socket) => closers.push(() => socket.destroy()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, state };
}

describe('a webhook receiver’s answer', () => {
  it('is read only so far: an endless body is cut off, not buffered in the kernel', async () => {
    const attempt = new AbortController();
    const receiver = await endlessReceiver(() => attempt.abort(new Error('read it all')));
    const channel = {
      name: 'hook',
      kind: 'webhook',
      workspace: 'ws',
      url: receiver.url,
      secrets: [{ value: SECRET, fingerprint: '' }],
    } as WebhookChannelConfig;
    await sendWebhook(
      channel,
      { id: 'ntf_1', payload: '{}' },
      { now: Date.now(), signal: attempt.signal },
    );
    expect(attempt.signal.aborted).toBe(false);
    // What sat in the sockets' buffers when the kernel hung up, far below the give-up mark.
    expect(receiver.state.written).toBeLessThan(64 * 1024 * 1024);
  }, 60_000);

  it('counts once its status came: a 200 whose body never ends, cut by the attempt, is delivered', async () => {
    // A receiver that accepts the notice and holds its answer open (a proxy that never ends it).
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('accepted');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    closers.push(() => {
      server.closeAllConnections();
      server.close();
    });
    const port = (server.address() as AddressInfo).port;
    const attempt = new AbortController();
    // The attempt is cut once the kernel holds the answer's head (the deadline, a stop).
    const onResponse = (message: unknown) => {
      const { response } = message as { response: IncomingMessage };
      if (response.socket?.remotePort === port) setImmediate(() => attempt.abort());
    };
    subscribe('http.client.response.finish', onResponse);
    closers.push(() => unsubscribe('http.client.response.finish', onResponse));
    const channel = {
      name: 'hook',
      kind: 'webhook',
      workspace: 'ws',
      url: `http://127.0.0.1:${port}/hook`,
      secrets: [{ value: SECRET, fingerprint: '' }],
    } as WebhookChannelConfig;
    // Failed, it would be posted again at every retry, to a receiver that took it each time.
    await sendWebhook(
      channel,
      { id: 'ntf_1', payload: '{}' },
      { now: Date.now(), signal: attempt.signal },
    );
    expect(attempt.signal.aborted).toBe(true);
  });
});
