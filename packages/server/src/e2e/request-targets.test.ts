import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Deployment } from '../testing/harness.js';
import { deploy } from '../testing/harness.js';
import { openRaw } from '../testing/raw-connection.js';
import { backends } from '../testing/stores.js';

const [sqlite] = await backends();

/** Sends raw request text on a new loopback connection and resolves with the server's first answer. */
async function exchange(url: string, request: string): Promise<string> {
  const connection = await openRaw(url);
  connection.socket.write(request);
  // One answer is all a test needs: a keep-alive connection would stay open. (openRaw's own
  // listener runs first, so what arrived is already in received().)
  connection.socket.on('data', () => {
    const text = connection.received();
    if (/\r\n\r\n/.test(text) && /"code"/.test(text)) connection.socket.end();
  });
  const gaveUp = setTimeout(() => connection.socket.destroy(), 5000);
  await connection.closed;
  clearTimeout(gaveUp);
  return connection.received();
}

// Node's HTTP parser lets these request lines through; `new URL` throws on each of them.
const TARGETS = ['//[', 'http://[', 'http://a:99999/healthz', '//[/trpc/runs.list'];

describe('request targets that are not URLs', () => {
  let d: Deployment;
  beforeAll(async () => {
    d = await deploy(sqlite!);
  });
  afterAll(async () => {
    await d.close();
  });

  it.each(TARGETS)(
    'answers %s with 400 invalid_input, before any credential, and keeps serving',
    async (target) => {
      const answer = await exchange(d.url, `GET ${target} HTTP/1.1\r\nhost: x\r\n\r\n`);
      expect(answer).toMatch(/^HTTP\/1\.1 400/);
      expect(answer).toContain('"code":"invalid_input"');
      expect(answer).not.toMatch(/TypeError|at new URL|node:internal/);
      const health = await fetch(`${d.url}/healthz`);
      expect(health.status).toBe(200);
    },
  );

  it('answers a WebSocket upgrade to such a target with 400 invalid_input, not 500', async () => {
    const answer = await exchange(
      d.url,
      `GET //[ HTTP/1.1\r\nhost: x\r\nconnection: upgrade\r\nupgrade: websocket\r\n` +
        'sec-websocket-version: 13\r\nsec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\n' +
        `authorization: Bearer ${d.tokens.member}\r\n\r\n`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 400/);
    expect(answer).toContain('"code":"invalid_input"');
    expect((await fetch(`${d.url}/healthz`)).status).toBe(200);
  });
});
