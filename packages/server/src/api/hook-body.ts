import type { IncomingMessage } from 'node:http';
import type { OperationContract } from '@airlock/core';
import { AirlockError } from '../errors.js';
import { notUtf8Error, readableBodyLimit, readChunks } from './request-body.js';

/*
 * A hook event past its body limit is still read: a report of a call that ran (Claude Code's
 * PostToolUse of a Bash that printed 17 MiB, or of a Write, which carries the file twice)
 * refused as too large would leave the call recorded as never reported. Such a body is read
 * with each long string cut to its start; what stays is bounded by the limit, so a body that is
 * large for another reason (millions of keys, deep nesting, no JSON at all) is still refused.
 */

/** The operations whose body past its limit is read with its long strings cut (hook events). */
export const CUT_READ_OPERATIONS: ReadonlySet<string> = new Set([
  'hooks.event',
  'hooks.claudeCode',
  'hooks.codex',
  'hooks.gemini',
]);

/** The most bytes of a hook body the kernel reads in all, long strings cut or not. */
export const HOOK_BODY_READ_MAX = 64 * 1024 * 1024;

/**
 * The start of a long string a cut body keeps, in bytes of its JSON text:
 * whatever its escapes, more than the 16 KiB of UTF-8 a row keeps of an
 * output, so an output cut here is also longer than its row and says so.
 */
export const CUT_STRING_KEEP_BYTES = 128 * 1024;

/** A hook body as read: whole, or (`cut`) with each long string cut to its start. */
export interface HookBody {
  readonly body: Buffer;
  readonly cut: boolean;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** The characters a JSON escape may name after its backslash, `u` aside: " \\ / b f n r t. */
const ESCAPED = new Set([0x22, 0x5c, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74]);

function isHexDigit(byte: number): boolean {
  return (byte >= 0x30 && byte <= 0x39) || ((byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x66);
}

function notJson(why: string): AirlockError {
  return new AirlockError('invalid_json', `the body is not JSON: ${why}; nothing was changed`);
}

/**
 * Copies JSON text with every string longer than {@link CUT_STRING_KEEP_BYTES}
 * cut to its start, never inside an escape or a UTF-8 sequence. It reads no
 * other structure: the text it keeps is checked as any body is.
 */
class LongStringCutter {
  private readonly kept: Buffer[] = [];
  private size = 0;
  private inString = false;
  private escaped = false;
  /** Hex digits of a `\u` escape still to come. */
  private hexLeft = 0;
  /** Bytes of the current string kept so far. */
  private stringBytes = 0;
  private dropping = false;
  /** Checks the bytes a cut string drops too, which the body's later UTF-8 check never sees. */
  private readonly utf8 = new TextDecoder('utf-8', { fatal: true });
  cut = false;

  constructor(
    private readonly limit: number,
    private readonly operation: Pick<OperationContract, 'errors'>,
  ) {}

  take(chunk: Buffer): void {
    try {
      this.utf8.decode(chunk, { stream: true });
    } catch {
      throw notUtf8Error(this.operation);
    }
    let from = 0;
    // Where the next quote and backslash are (-1: none left in the chunk), found once each.
    let quoteAt = -2;
    let backslashAt = -2;
    let i = 0;
    while (i < chunk.length) {
      if (quoteAt !== -1 && quoteAt < i) quoteAt = chunk.indexOf(QUOTE, i);
      if (!this.inString) {
        if (quoteAt < 0) break;
        this.inString = true;
        this.stringBytes = 0;
        i = quoteAt + 1;
        continue;
      }
      if (!this.escaped && this.hexLeft === 0) {
        // A run of plain characters up to the next quote or backslash, skipped in one step.
        if (backslashAt !== -1 && backslashAt < i) backslashAt = chunk.indexOf(BACKSLASH, i);
        const next = Math.min(
          quoteAt < 0 ? chunk.length : quoteAt,
          backslashAt < 0 ? chunk.length : backslashAt,
        );
        if (!this.dropping && this.stringBytes + (next - i) > CUT_STRING_KEEP_BYTES) {
          // Cut before a character's first byte, never inside a UTF-8 sequence.
          let at = i + Math.max(0, CUT_STRING_KEEP_BYTES - this.stringBytes);
          while (at < next && ((chunk[at] as number) & 0xc0) === 0x80) at++;
          if (at < next) this.startDropping(chunk.subarray(from, at));
        }
        this.stringBytes += next - i;
        i = next;
        if (i >= chunk.length) break;
      }
      const byte = chunk[i] as number;
      if (
        !this.dropping &&
        this.stringBytes >= CUT_STRING_KEEP_BYTES &&
        !this.escaped &&
        this.hexLeft === 0 &&
        byte === BACKSLASH
      ) {
        // Cut before an escape, never inside one.
        this.startDropping(chunk.subarray(from, i));
      }
      this.stringBytes++;
      // Checked here as well: a bad escape in a part that is dropped would never be seen.
      if (this.hexLeft > 0) {
        if (!isHexDigit(byte)) throw notJson('a \\u escape holds a character that is not hex');
        this.hexLeft--;
      } else if (this.escaped) {
        this.escaped = false;
        if (byte === 0x75) this.hexLeft = 4;
        else if (!ESCAPED.has(byte)) throw notJson('a string holds an unknown escape');
      } else if (byte === BACKSLASH) this.escaped = true;
      else if (byte === QUOTE) {
        this.inString = false;
        if (this.dropping) {
          this.dropping = false;
          from = i;
        }
      }
      i++;
    }
    if (!this.dropping) this.keep(chunk.subarray(from));
  }

  private startDropping(kept: Buffer): void {
    this.keep(kept);
    this.dropping = true;
    this.cut = true;
  }

  private keep(part: Buffer): void {
    if (part.length === 0) return;
    this.size += part.length;
    if (this.size > this.limit) {
      throw new AirlockError(
        'payload_too_large',
        `the body limit is ${this.limit} bytes, with each string longer than ${CUT_STRING_KEEP_BYTES} bytes cut to its start`,
      );
    }
    // A copy: a small part would otherwise hold its whole chunk in memory.
    this.kept.push(Buffer.from(part));
  }

  text(): Buffer {
    try {
      this.utf8.decode();
    } catch {
      throw notUtf8Error(this.operation);
    }
    return Buffer.concat(this.kept);
  }
}

/**
 * Reads a hook event's body: whole up to `limit` (at most the
 * kernel's readable limit), and past it (up to {@link HOOK_BODY_READ_MAX}
 * bytes) with each string longer than {@link CUT_STRING_KEEP_BYTES} cut to
 * its start (`cut`). Holds at most about twice the limit in memory.
 * @throws AirlockError payload_too_large when the body is past
 *   {@link HOOK_BODY_READ_MAX}, or what it keeps with its strings cut is
 *   still past the limit; invalid_json for a bad escape or control character
 *   in a string; from notUtf8Error for bytes that are not UTF-8; from
 *   bodyCutShort when the client left first.
 */
export async function readHookBody(
  req: IncomingMessage,
  options: { limit: number; operation: Pick<OperationContract, 'errors'> },
): Promise<HookBody> {
  const limit = readableBodyLimit(options.limit);
  let whole: Buffer[] | null = [];
  let size = 0;
  let cutter: LongStringCutter | null = null;
  await readChunks(req, HOOK_BODY_READ_MAX, (chunk) => {
    size += chunk.length;
    if (size > HOOK_BODY_READ_MAX) {
      throw new AirlockError(
        'payload_too_large',
        `the hook body limit is ${HOOK_BODY_READ_MAX} bytes, long strings cut or not`,
      );
    }
    if (whole !== null && size <= limit) {
      whole.push(chunk);
      return;
    }
    if (cutter === null) {
      // Past the limit: the bytes read so far are read again, cutting.
      cutter = new LongStringCutter(limit, options.operation);
      for (const part of whole ?? []) cutter.take(part);
      whole = null;
    }
    cutter.take(chunk);
  });
  if (cutter === null) return { body: Buffer.concat(whole ?? []), cut: false };
  const done: LongStringCutter = cutter;
  return { body: done.text(), cut: done.cut };
}
