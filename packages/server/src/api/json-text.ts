import { inexactNumber, jsonStringEnd, pointerFrom } from '@airlock/core';
import { AirlockError } from '../errors.js';
import { MAX_JSON_DEPTH, tooDeep } from './input-guard.js';

/** An open array or object of the text being scanned, and where its current member sits. */
interface Frame {
  /** The keys an object has named so far; null for an array. */
  readonly keys: Set<string> | null;
  /** The current member: an object's last key, an array's index. */
  at: string | number;
  /** In an object: whether the next string is a key (after `{` or `,`). */
  expectsKey: boolean;
}

function pointerOf(frames: readonly Frame[], last: string | number): string {
  // The root frame is the body itself; each frame's `at` is a step toward the member.
  return pointerFrom([...frames.slice(0, -1).map((frame) => frame.at), last]);
}

function refusal(problem: 'duplicate_key' | 'inexact_number', pointer: string, message: string) {
  return new AirlockError('invalid_json', `${pointer || '/'}: ${message}; nothing was changed`, [
    { code: problem, pointer, message },
  ]);
}

/** Whether a character may be part of a JSON number token. */
function inNumber(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2b || c === 0x2e || (c | 0x20) === 0x65;
}

/**
 * Checks a request's JSON text before `JSON.parse` reads it, in one linear
 * pass (strings are skipped with `indexOf`): its nesting depth, a key named
 * twice in one object (`JSON.parse` keeps the last, where a proxy or a
 * validator in front of the kernel may read the first), and a number the
 * parse would not read as written (an integer past 2^53, a number past the
 * largest double). Text that is not JSON is left to `JSON.parse` to refuse.
 * @throws AirlockError input_too_deep past {@link MAX_JSON_DEPTH}; invalid_json
 * with a `duplicate_key` or `inexact_number` problem naming its pointer.
 */
export function checkJsonText(text: string): void {
  const frames: Frame[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const end = jsonStringEnd(text, i);
      const top = frames[frames.length - 1];
      if (top?.keys && top.expectsKey) {
        const key = keyOf(text, i, end);
        // A key that does not decode is not JSON: the parse refuses it.
        if (key === null) return;
        if (top.keys.has(key)) {
          throw refusal(
            'duplicate_key',
            pointerOf(frames, key),
            `the key ${JSON.stringify(key)} is named twice in one object; name each key once`,
          );
        }
        top.keys.add(key);
        top.at = key;
        top.expectsKey = false;
      }
      i = end;
    } else if (c === 0x7b || c === 0x5b) {
      if (frames.length >= MAX_JSON_DEPTH) throw tooDeep();
      frames.push(
        c === 0x7b
          ? { keys: new Set(), at: '', expectsKey: true }
          : { keys: null, at: 0, expectsKey: false },
      );
    } else if (c === 0x7d || c === 0x5d) {
      frames.pop();
    } else if (c === 0x2c) {
      const top = frames[frames.length - 1];
      if (top?.keys) top.expectsKey = true;
      else if (top) top.at = (top.at as number) + 1;
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      let end = i + 1;
      while (end < text.length && inNumber(text.charCodeAt(end))) end++;
      const token = text.slice(i, end);
      const reason = inexactNumber(token);
      if (reason !== null) {
        const top = frames[frames.length - 1];
        throw refusal('inexact_number', top ? pointerOf(frames, top.at) : '', reason);
      }
      i = end - 1;
    }
  }
}

/** A key's text as `JSON.parse` reads it (escapes decoded), or null when it does not decode. */
function keyOf(text: string, open: number, close: number): string | null {
  const raw = text.slice(open + 1, close);
  if (!raw.includes('\\')) return raw;
  try {
    return JSON.parse(text.slice(open, close + 1)) as string;
  } catch {
    return null;
  }
}
