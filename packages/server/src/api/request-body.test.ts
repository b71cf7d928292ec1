import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { OPERATIONS } from './operations.js';
import { MAX_READABLE_BODY, readBody, trpcBodyLimit } from './request-body.js';

const MIB = 1024 * 1024;

describe('trpcBodyLimit', () => {
  it('takes the largest floor of the operations a batch calls, for a caller of their plane', () => {
    const agent = { limit: MIB, plane: 'agent' as const };
    expect(trpcBodyLimit('hooks.event', agent, OPERATIONS)).toBe(16 * MIB);
    expect(trpcBodyLimit('runs.stop,hooks.event', agent, OPERATIONS)).toBe(16 * MIB);
    expect(trpcBodyLimit('runs.stop', agent, OPERATIONS)).toBe(MIB);
    expect(trpcBodyLimit('runs.stop,executor.commit', agent, OPERATIONS)).toBe(MIB);
  });

  it('reads no body for a call no named operation admits (its plane refused, no such procedure)', () => {
    expect(trpcBodyLimit('hooks.event', { limit: MIB, plane: 'executor' }, OPERATIONS)).toBe(0);
    expect(trpcBodyLimit('hooks.event', { limit: MIB, plane: null }, OPERATIONS)).toBe(0);
    expect(trpcBodyLimit('no.such', { limit: MIB, plane: 'agent' }, OPERATIONS)).toBe(0);
    // A limit above the floor stays.
    expect(trpcBodyLimit('hooks.event', { limit: 32 * MIB, plane: 'agent' }, OPERATIONS)).toBe(
      32 * MIB,
    );
  });
});

describe('readBody', () => {
  /** A request announcing `length` bytes whose body stream holds none (it ends at once). */
  function announcing(length: number): IncomingMessage {
    const stream = new PassThrough();
    stream.end();
    return Object.assign(stream, {
      headers: { 'content-length': String(length) },
    }) as unknown as IncomingMessage;
  }

  it("refuses a body past V8's longest string before reading it, whatever the limit says", async () => {
    // A 1 GiB limit (the CLI takes up to that) would read a body it could never decode.
    const refused = readBody(announcing(MAX_READABLE_BODY + 1), 1024 * MIB);
    await expect(refused).rejects.toMatchObject({
      code: 'payload_too_large',
      detail: `the body limit is ${MAX_READABLE_BODY} bytes`,
    });
    // At the bound itself the body is read (this one is empty).
    await expect(readBody(announcing(MAX_READABLE_BODY), 1024 * MIB)).resolves.toHaveLength(0);
  });
});
