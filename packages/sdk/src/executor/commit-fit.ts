import { jsonTextNestsDeeperThan, MAX_JSON_DEPTH } from '@airlock/core';

/** The kernel's request body limit unless its operator set another (`--body-limit`): 1 MiB. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/** Room kept in a commit's body for what rides beside the result (the row's address, the claim). */
const ENVELOPE_BYTES = 4096;

/** The UTF-8 length of text that JSON.stringify made (its lone surrogates are escapes by then). */
function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c < 0xdc00) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * Whether the kernel takes a commit carrying this result (its JSON text, as
 * the executor already made it to check it is JSON) as it is: within the
 * body limit, no deeper than a request may nest (the result is level 2 of
 * the body), and no `__proto__` key (a kernel refuses one anywhere; any
 * `"__proto__"` in the text counts, to stay on the safe side). A result for
 * which this is false may commit as the failure `result_too_large` or
 * `invalid_result` instead. Reads the text once at most; most results are
 * decided by their length alone.
 */
export function resultCommitsAsIs(text: string, bodyLimit: number): boolean {
  const budget = bodyLimit - ENVELOPE_BYTES;
  // Every UTF-16 unit is at least one UTF-8 byte, and at most three.
  if (text.length > budget) return false;
  if (text.length * 3 > budget && utf8Length(text) > budget) return false;
  if (text.includes('"__proto__"')) return false;
  return !jsonTextNestsDeeperThan(text, MAX_JSON_DEPTH - 1);
}
