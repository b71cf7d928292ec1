import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CUT_STRING_KEEP_BYTES, HOOK_BODY_READ_MAX, readHookBody } from './hook-body.js';
import { OPERATIONS } from './operations.js';

const KEEP = CUT_STRING_KEEP_BYTES;
const hookEvent = OPERATIONS.find((operation) => operation.name === 'hooks.event')!;
const claudeCode = OPERATIONS.find((operation) => operation.name === 'hooks.claudeCode')!;

/** A request whose body is `bytes`, sent in chunks of `chunk` bytes (and announcing `length`). */
function requestOf(bytes: Buffer, chunk: number, length?: number): IncomingMessage {
  const stream = new PassThrough();
  for (let at = 0; at < bytes.length; at += chunk) stream.write(bytes.subarray(at, at + chunk));
  stream.end();
  const headers = length === undefined ? {} : { 'content-length': String(length) };
  return Object.assign(stream, { headers, complete: true }) as unknown as IncomingMessage;
}

async function read(text: string | Buffer, limit: number, chunk = 65_536) {
  const bytes = typeof text === 'string' ? Buffer.from(text) : text;
  return readHookBody(requestOf(bytes, chunk), { limit, operation: claudeCode });
}

describe('readHookBody', () => {
  it('a body up to its limit is read whole, its long strings too', async () => {
    const text = JSON.stringify({ a: 'x'.repeat(KEEP * 2) });
    const read1 = await read(text, text.length);
    expect(read1.cut).toBe(false);
    expect(read1.body.toString()).toBe(text);
  });

  it('past its limit, each long string keeps its start and the rest is as sent', async () => {
    const long = `${'\\u00e9\\"\\\\€'.repeat(KEEP / 8)}${'y'.repeat(4 * KEEP)}`;
    const text = `{"a":"${long}","b":[1,"short",{"c":"${long}"}],"d":true}`;
    for (const chunk of [1 + KEEP / 2, 7, 65_536]) {
      const { body, cut } = await read(text, 3 * KEEP, chunk);
      expect(cut).toBe(true);
      const parsed = JSON.parse(body.toString('utf8'));
      const whole = JSON.parse(JSON.stringify(JSON.parse(`"${long}"`)));
      expect(parsed.b.slice(0, 2)).toEqual([1, 'short']);
      expect(parsed.d).toBe(true);
      for (const kept of [parsed.a, parsed.b[2].c]) {
        expect(whole.startsWith(kept)).toBe(true);
        expect(kept.length).toBeGreaterThan(16_384);
        expect(kept.length).toBeLessThan(whole.length);
      }
    }
  });

  it('never cuts inside an escape or a character, however the chunks fall', () => {
    return fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom('a', 'é', '€', '😀', '\\u00e9', '\\ud83d\\ude00', '\\n', '\\\\'), {
          minLength: 1,
          maxLength: 8,
        }),
        fc.integer({ min: 1, max: 9 }),
        async (pieces, chunk) => {
          const unit = pieces.join('');
          const long = unit.repeat(Math.ceil((2 * KEEP) / Buffer.byteLength(unit)));
          const { body, cut } = await read(`["${long}"]`, KEEP + 100, chunk * 4099);
          expect(cut).toBe(true);
          const [kept] = JSON.parse(body.toString('utf8')) as [string];
          expect((JSON.parse(`"${long}"`) as string).startsWith(kept)).toBe(true);
        },
      ),
      { numRuns: 30 },
    );
  });

  it('refuses a body that stays past its limit once its strings are cut (millions of keys)', async () => {
    const keys = `{${Array.from({ length: 200_000 }, (_, i) => `"k${i}":1`).join(',')}}`;
    await expect(read(keys, 1024 * 1024)).rejects.toMatchObject({ code: 'payload_too_large' });
  });

  it('refuses a body past the most it reads, announced or streamed', async () => {
    const announced = requestOf(Buffer.from('{}'), 2, HOOK_BODY_READ_MAX + 1);
    await expect(
      readHookBody(announced, { limit: 1024, operation: claudeCode }),
    ).rejects.toMatchObject({
      code: 'payload_too_large',
    });
    const endless = new PassThrough();
    const request = Object.assign(endless, { headers: {} }) as unknown as IncomingMessage;
    const reading = readHookBody(request, { limit: 1024, operation: claudeCode });
    const block = Buffer.alloc(1024 * 1024, 0x61);
    endless.write('["');
    let written = 0;
    while (written <= HOOK_BODY_READ_MAX) {
      endless.write(block);
      written += block.length;
    }
    await expect(reading).rejects.toMatchObject({ code: 'payload_too_large' });
    endless.destroy();
  });

  it('refuses what is not JSON in the part of a string it drops', async () => {
    const tail = (bad: string) => `{"a":"${'x'.repeat(2 * KEEP)}${bad}"}`;
    for (const bad of ['\\q', '\\u12g4', '\\u12"4']) {
      await expect(read(tail(bad), KEEP + 100)).rejects.toMatchObject({ code: 'invalid_json' });
    }
    const notUtf8 = Buffer.concat([Buffer.from(tail('')), Buffer.from([0xff])]);
    const dropped = Buffer.concat([
      Buffer.from(`{"a":"${'x'.repeat(2 * KEEP)}`),
      Buffer.from([0xc3]),
      Buffer.from('"}'),
    ]);
    for (const bytes of [notUtf8, dropped]) {
      await expect(read(bytes, KEEP + 100)).rejects.toMatchObject({ code: 'invalid_json' });
      // hooks.event answers bytes that are not UTF-8 as it does below its limit.
      const asEvent = readHookBody(requestOf(bytes, 65_536), {
        limit: KEEP + 100,
        operation: hookEvent,
      });
      await expect(asEvent).rejects.toMatchObject({ code: 'invalid_configuration' });
    }
  });
});
