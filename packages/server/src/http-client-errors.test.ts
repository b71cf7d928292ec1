import { maxHeaderSize } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from './testing/harness.js';
import { openRaw } from './testing/raw-connection.js';
import { backends } from './testing/stores.js';

const [sqlite] = await backends();

/** Sends `head` on a fresh connection and reads what came back before the kernel closed it. */
async function exchange(
  url: string,
  head: string,
): Promise<{ status: number; head: string; body: string }> {
  const raw = await openRaw(url);
  raw.socket.write(head);
  await raw.closed;
  const text = raw.received();
  const split = text.indexOf('\r\n\r\n');
  return {
    status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]),
    head: text.slice(0, split),
    body: text.slice(split + 4),
  };
}

/** The kernel's airlock_errors_total by code, as a member scrapes it. */
async function errorsCounted(d: Deployment): Promise<Record<string, number>> {
  const text = await (
    await fetch(`${d.url}/metrics`, { headers: { authorization: `Bearer ${d.tokens.member}` } })
  ).text();
  const counted: Record<string, number> = {};
  for (const line of text.split('\n')) {
    const found = /^airlock_errors_total\{code="([a-z_]+)"\} (\d+)$/.exec(line);
    if (found) counted[found[1]!] = Number(found[2]);
  }
  return counted;
}

// What the HTTP parser refuses never reaches a route: the kernel still answers in the API's shape.
describe('a request the HTTP parser refuses', () => {
  let d: Deployment;
  beforeAll(async () => {
    d = await deploy(sqlite!);
  });
  afterAll(async () => {
    await d.close();
  });

  it("answers headers past Node's limit 431 headers_too_large, as JSON, naming the limit", async () => {
    const answer = await exchange(
      d.url,
      `GET ${d.ws}/runs HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${d.tokens.member}\r\n` +
        `x-padding: ${'a'.repeat(maxHeaderSize + 1)}\r\n\r\n`,
    );
    expect(answer.status).toBe(431);
    expect(answer.head).toMatch(/^content-type: application\/json/im);
    expect(JSON.parse(answer.body)).toEqual({
      error: {
        code: 'headers_too_large',
        detail: `the request's headers are past the ${maxHeaderSize} bytes the kernel reads; send fewer or shorter headers`,
      },
    });
  });

  it('answers the same to a client library (fetch)', async () => {
    const response = await fetch(`${d.url}${d.ws}/runs`, {
      headers: { authorization: `Bearer ${d.tokens.member}`, cookie: 'a'.repeat(maxHeaderSize) },
    });
    expect(response.status).toBe(431);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe(
      'headers_too_large',
    );
  });

  it('answers a pipelined request before refusing the one after it that is no HTTP', async () => {
    const answer = await exchange(
      d.url,
      `GET ${d.ws}/runs HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${d.tokens.member}\r\n\r\n` +
        'NOT HTTP AT ALL\r\n\r\n',
    );
    // The first answer is the GET's; the refusal follows it on the same connection.
    expect(answer.status).toBe(200);
    expect(answer.body).toContain('{"runs":[]');
    expect(answer.body).toContain('HTTP/1.1 400 Bad Request');
    expect(answer.body).toMatch(/"code":"invalid_input"/);
  });

  it('counts each refusal in airlock_errors_total by its code, as every error answer is', async () => {
    const before = await errorsCounted(d);
    await exchange(d.url, `GET / HTTP/1.1\r\nx-padding: ${'a'.repeat(maxHeaderSize + 1)}\r\n\r\n`);
    await exchange(d.url, 'NOT HTTP AT ALL\r\n\r\n');
    const after = await errorsCounted(d);
    expect(after.headers_too_large ?? 0).toBe((before.headers_too_large ?? 0) + 1);
    expect(after.invalid_input ?? 0).toBe((before.invalid_input ?? 0) + 1);
  });

  it('answers a request that is no HTTP 400 invalid_input, as before', async () => {
    const answer = await exchange(d.url, 'NOT HTTP AT ALL\r\n\r\n');
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body).error.code).toBe('invalid_input');
  });
});

describe('a request whose headers do not arrive in time', () => {
  let d: Deployment;
  beforeAll(async () => {
    // Headers get 300 ms, the whole request a minute: only the headers' deadline can pass.
    d = await deploy(sqlite!, {
      timeouts: { headersMs: 300, requestMs: 60_000, checkIntervalMs: 50 },
    });
  });
  afterAll(async () => {
    await d.close();
  });

  it("is answered 408 naming the deadline it missed, not only the whole request's", async () => {
    // The head never ends (no blank line): the kernel answers once the headers' deadline passed.
    const answer = await exchange(d.url, `GET ${d.ws}/runs HTTP/1.1\r\nhost: x\r\n`);
    expect(answer.status).toBe(408);
    expect((await errorsCounted(d)).request_timeout).toBe(1);
    expect(JSON.parse(answer.body)).toEqual({
      error: {
        code: 'request_timeout',
        detail:
          'the request did not arrive in time: its headers within 300 ms, all of it within 60000 ms',
      },
    });
  });
});

describe('a request with an expectation besides 100-continue', () => {
  let d: Deployment;
  beforeAll(async () => {
    d = await deploy(sqlite!);
  });
  afterAll(async () => {
    await d.close();
  });

  it('is served as if it named none, never a bare 417 outside the error table', async () => {
    const answer = await exchange(
      d.url,
      `GET ${d.ws}/runs HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${d.tokens.member}\r\n` +
        'expect: 200-ok\r\nconnection: close\r\n\r\n',
    );
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ runs: [] });
  });
});
