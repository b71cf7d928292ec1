import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Deployment } from '../testing/harness.js';
import { deploy } from '../testing/harness.js';
import { openRaw as open, type RawConnection } from '../testing/raw-connection.js';
import { backends } from '../testing/stores.js';

const [sqlite] = await backends();

/** Resolves with what happened first: the server closing the connection, or a grace period. */
function closedWithin(connection: RawConnection, ms: number): Promise<boolean> {
  return Promise.race([
    connection.closed.then(() => true),
    new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms).unref()),
  ]);
}

describe('slow and unauthenticated clients', () => {
  let d: Deployment;
  beforeAll(async () => {
    d = await deploy(sqlite!, {
      bodyLimit: 64 * 1024 * 1024,
      timeouts: { requestMs: 1000, headersMs: 500, checkIntervalMs: 100 },
    });
  });
  afterAll(async () => {
    await d.close();
  });

  it('cuts a body dripped a byte at a time at the request timeout', async () => {
    const connection = await open(d.url);
    connection.socket.write(
      `POST ${d.ws}/runs HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${d.tokens.agent}\r\n` +
        'content-type: application/json\r\ncontent-length: 100000\r\n\r\n',
    );
    const drip = setInterval(() => {
      if (connection.socket.writable) connection.socket.write(' ');
    }, 50);
    try {
      expect(await closedWithin(connection, 10_000)).toBe(true);
    } finally {
      clearInterval(drip);
      connection.socket.destroy();
    }
    expect(connection.received()).toMatch(/^HTTP\/1\.1 408/);
  });

  it('cuts headers dripped a byte at a time at the headers timeout', async () => {
    const connection = await open(d.url);
    const drip = setInterval(() => {
      if (connection.socket.writable) connection.socket.write('x');
    }, 50);
    connection.socket.write('GET /healthz HTTP/1.1\r\nx-slow: ');
    try {
      expect(await closedWithin(connection, 10_000)).toBe(true);
    } finally {
      clearInterval(drip);
      connection.socket.destroy();
    }
  });

  for (const [surface, path] of [
    ['REST', () => `${d.ws}/runs`],
    ['tRPC', () => '/trpc/runs.create'],
  ] as const) {
    it(`answers 401 to an unauthenticated ${surface} request before reading its large body`, async () => {
      const connection = await open(d.url);
      // 50 MB announced, 1 KiB sent: the answer must come (and the connection close) without the rest.
      connection.socket.write(
        `POST ${path()} HTTP/1.1\r\nhost: x\r\nauthorization: Bearer nope\r\n` +
          `content-type: application/json\r\ncontent-length: ${50 * 1024 * 1024}\r\n\r\n${'{'.padEnd(1024, ' ')}`,
      );
      try {
        expect(await closedWithin(connection, 10_000)).toBe(true);
      } finally {
        connection.socket.destroy();
      }
      expect(connection.received()).toMatch(/^HTTP\/1\.1 401/);
      expect(connection.received()).toContain('unauthenticated');
    });
  }
});
