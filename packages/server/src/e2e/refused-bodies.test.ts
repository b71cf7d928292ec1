import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from '../testing/harness.js';
import { openRaw, writeWholeThenRead } from '../testing/raw-connection.js';
import { backends } from '../testing/stores.js';

const [sqlite] = await backends();

/*
 * A request refused before its body was read (past the body limit, an
 * unknown credential) is answered and the connection closes; the client
 * that writes its whole body before reading still gets the answer, not a
 * connection reset. 16 MB is more than the loopback socket buffers hold.
 */
describe('answers to bodies the kernel does not read', () => {
  let d: Deployment;
  beforeAll(async () => {
    d = await deploy(sqlite!, { bodyLimit: 64 * 1024 });
  });
  afterAll(async () => {
    await d.close();
  });
  const body = Buffer.alloc(16 * 1024 * 1024, 32);
  const head = (path: string, token: string, framing: string) =>
    `POST ${path} HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${token}\r\n` +
    `content-type: application/json\r\n${framing}\r\n`;
  const sized = `content-length: ${body.length}\r\n`;

  /** Requests the kernel refuses before it reads their body: name, path, token, status, code. */
  const refusals: [string, () => string, () => string, number, string][] = [
    ['REST past the limit', () => `${d.ws}/runs`, () => d.tokens.agent, 413, 'payload_too_large'],
    [
      'tRPC past the limit',
      () => '/trpc/runs.create',
      () => d.tokens.agent,
      413,
      'payload_too_large',
    ],
    ['REST with an unknown token', () => `${d.ws}/runs`, () => 'nope', 401, 'unauthenticated'],
    ['tRPC with an unknown token', () => '/trpc/runs.create', () => 'nope', 401, 'unauthenticated'],
    ['REST on the wrong plane', () => `${d.ws}/runs`, () => d.tokens.executor, 403, 'forbidden'],
  ];
  for (const [name, path, token, status, code] of refusals) {
    it(`answers ${status} to a whole body sent first: ${name}`, async () => {
      const answer = await writeWholeThenRead(d.url, head(path(), token(), sized), body);
      expect(answer).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
      expect(answer).toMatch(/\r\nconnection: close\r\n/i);
      expect(answer).toContain(code);
    });
  }

  it('answers 413 to a chunked body found past the limit while reading it', async () => {
    // Chunked: no length announced, so the limit is found while reading, part way through.
    const chunks = Buffer.concat([
      ...Array.from({ length: 256 }, () =>
        Buffer.concat([Buffer.from('10000\r\n'), Buffer.alloc(0x10000, 32), Buffer.from('\r\n')]),
      ),
      Buffer.from('0\r\n\r\n'),
    ]);
    const answer = await writeWholeThenRead(
      d.url,
      head(`${d.ws}/runs`, d.tokens.agent, 'transfer-encoding: chunked\r\n'),
      chunks,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toContain('payload_too_large');
  });

  for (const [name, path, token, status, code] of refusals) {
    it(`answers ${status} to Expect: 100-continue before the body is sent: ${name}`, async () => {
      const raw = await openRaw(d.url);
      raw.socket.write(head(path(), token(), `${sized}expect: 100-continue\r\n`));
      // The whole answer: a JSON body (REST) or its last chunk (tRPC answers chunked).
      await expect.poll(() => raw.received()).toMatch(/(\}|\r\n0\r\n\r\n)$/);
      raw.socket.destroy();
      expect(raw.received()).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
      expect(raw.received()).not.toContain('100 Continue');
      expect(raw.received()).toContain(code);
    });
  }

  it('answers 403 to a tRPC call on the wrong plane before its body (within the limit) is sent, as REST does', async () => {
    for (const path of ['/trpc/runs.create', `${d.ws}/runs`]) {
      const raw = await openRaw(d.url);
      const within = `content-length: ${32 * 1024}\r\nexpect: 100-continue\r\n`;
      raw.socket.write(head(path, d.tokens.executor, within));
      await expect.poll(() => raw.received()).toMatch(/(\}|\r\n0\r\n\r\n)$/);
      raw.socket.destroy();
      expect(raw.received(), path).toMatch(/^HTTP\/1\.1 403 /);
      expect(raw.received(), path).not.toContain('100 Continue');
      expect(raw.received(), path).toMatch(/\r\nconnection: close\r\n/i);
    }
  });

  it('answers 100 Continue to a body within the limit, then serves it', async () => {
    const raw = await openRaw(d.url);
    const json = JSON.stringify({
      approval_mode: 'bypass',
      input: 'hello',
      provider: { kind: 'scripted', rounds: [{ final: 'done' }] },
    });
    raw.socket.write(
      head(
        `${d.ws}/runs`,
        d.tokens.agent,
        `content-length: ${Buffer.byteLength(json)}\r\nexpect: 100-continue\r\nconnection: close\r\n`,
      ),
    );
    await expect.poll(() => raw.received()).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\n/);
    raw.socket.write(json);
    await raw.closed;
    const final = raw.received().replace(/^HTTP\/1\.1 100 Continue\r\n\r\n/, '');
    expect(final).toMatch(/^HTTP\/1\.1 201 /);
  });

  it('still serves the next request after each', async () => {
    const runs = await d.agent.get(`${d.ws}/runs`);
    expect(runs.status).toBe(200);
  });
});
