import { connect as tcpConnect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from '../testing/harness.js';
import { connect } from '../testing/sockets.js';
import { backends } from '../testing/stores.js';

/**
 * A client that resets its connection while the kernel still reads its
 * WebSocket upgrade (the credential, the store) leaves a socket that errors
 * with nobody listening: the kernel must drop it and keep serving.
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

describe.skipIf(!sqlite)('an upgrade its client abandons', () => {
  let d: Deployment;
  afterEach(async () => {
    await d?.close();
  });

  it('is dropped: the kernel keeps serving requests and sockets', async () => {
    d = await deploy(sqlite!);
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
});
