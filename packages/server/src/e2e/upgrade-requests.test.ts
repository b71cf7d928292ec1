import { connect as tcpConnect } from 'node:net';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type Deployment, sharedKernels } from '../testing/harness.js';
import { connect } from '../testing/sockets.js';
import { backends } from '../testing/stores.js';

/**
 * Requests that ask to switch protocols: a client that resets its connection
 * while the kernel still reads its WebSocket upgrade (the credential, the
 * store) leaves a socket that errors with nobody listening, which the kernel
 * drops and keeps serving; a handshake that is no WebSocket handshake gets a
 * JSON error; and an upgrade to another protocol (`curl --http2` sends
 * `Upgrade: h2c`) is served as the HTTP/1.1 request it also is.
 */

const all = await backends();
const sqlite = all.find((backend) => backend.name === 'sqlite' && backend.skip === null);

/** Sends an upgrade request for `path`, then resets the connection after `delayMs`; resolves once closed. */
function abandonUpgrade(url: URL, path: string, token: string | null, delayMs: number) {
  return new Promise<void>((resolve) => {
    const socket = tcpConnect(Number(url.port), url.hostname, () => {
      socket.write(
        `GET ${path} HTTP/1.1\r\nHost: ${url.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
          'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n' +
          `${token ? `Authorization: Bearer ${token}\r\n` : ''}\r\n`,
      );
      setTimeout(() => socket.resetAndDestroy(), delayMs);
    });
    socket.on('error', () => {});
    socket.on('close', () => resolve());
  });
}

/** Sends raw request text and resolves with the whole answer, once the server closed the connection. */
function exchange(
  url: URL,
  request: string,
): Promise<{ status: number; head: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = tcpConnect(Number(url.port), url.hostname, () => socket.write(request));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', body = ''] = text.split('\r\n\r\n');
      resolve({ status: Number(head.split(' ')[1]), head, body });
    });
  });
}

describe.skipIf(!sqlite)('requests that ask to switch protocols', () => {
  let d: Deployment;
  const kernels = sharedKernels();
  afterAll(() => kernels.close());
  afterEach(async () => {
    await d?.close();
  });

  it('is dropped: the kernel keeps serving requests and sockets', async () => {
    d = await kernels.deploy(sqlite!);
    const url = new URL(d.url);
    const feedPath = `${new URL(`${d.url}${d.ws}/feed`).pathname}?after=0`;
    for (const delayMs of [0, 1, 5]) {
      await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          i % 2 === 0
            ? abandonUpgrade(url, '/executor_api/v1/cable', null, delayMs)
            : abandonUpgrade(url, feedPath, d.tokens.member, delayMs),
        ),
      );
    }
    expect((await fetch(`${d.url}/healthz`)).status).toBe(200);
    const feed = await connect(`${d.url}${d.ws}/feed?after=0`, d.tokens.member);
    try {
      await expect.poll(() => feed.messages[0]?.type).toBe('ready');
    } finally {
      feed.close();
    }
  });

  it('answers an upgrade to another protocol as plain HTTP, or refuses one with a body it cannot read', async () => {
    d = await kernels.deploy(sqlite!);
    const url = new URL(d.url);
    const path = `${new URL(`${d.url}${d.ws}/runs`).pathname}?limit=1`;
    const h2c =
      'Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n';
    const listed = await exchange(
      url,
      `GET ${path} HTTP/1.1\r\nHost: ${url.host}\r\n${h2c}Authorization: Bearer ${d.tokens.member}\r\n\r\n`,
    );
    expect(listed.status).toBe(200);
    expect(JSON.parse(listed.body).runs).toEqual([]);
    const withBody = await exchange(
      url,
      `POST ${new URL(`${d.url}${d.ws}/runs`).pathname} HTTP/1.1\r\nHost: ${url.host}\r\n${h2c}` +
        `Authorization: Bearer ${d.tokens.member}\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`,
    );
    expect(withBody.status).toBe(400);
    expect(JSON.parse(withBody.body).error.code).toBe('invalid_input');
    // Nothing was made.
    expect((await d.member.get(`${d.ws}/runs`)).body.runs).toEqual([]);
  });

  it('refuses what is no WebSocket handshake with a JSON error', async () => {
    d = await kernels.deploy(sqlite!);
    const url = new URL(d.url);
    const handshake = (method: string, version: string) =>
      exchange(
        url,
        `${method} /executor_api/v1/cable HTTP/1.1\r\nHost: ${url.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
          `Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: ${version}\r\n` +
          `Authorization: Bearer ${d.tokens.executor}\r\n\r\n`,
      );
    const oldVersion = await handshake('GET', '99');
    expect(oldVersion.status).toBe(400);
    expect(oldVersion.head.toLowerCase()).toContain('content-type: application/json');
    expect(JSON.parse(oldVersion.body).error.code).toBe('invalid_input');
    const posted = await handshake('POST', '13');
    expect(posted.status).toBe(405);
    expect(JSON.parse(posted.body).error.code).toBe('method_not_allowed');
  });
});
