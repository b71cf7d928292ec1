import { isWellFormed } from './utf8.js';

const REPLACEMENT = '\uFFFD';

type WellFormedMethods = { isWellFormed?: () => boolean; toWellFormed?: () => string };
const native = String.prototype as WellFormedMethods;

/** True when the string has a UTF-8 form (no lone surrogate); native where the runtime has it. */
export function textIsWellFormed(text: string): boolean {
  return native.isWellFormed ? native.isWellFormed.call(text) : isWellFormed(text);
}

/**
 * The string whose UTF-16 units spell the same UTF-8 bytes a UTF-8 encoder
 * gives for `text`: every lone surrogate replaced by U+FFFD. Returns `text`
 * itself when it is already well formed.
 */
export function toWellFormedText(text: string): string {
  if (textIsWellFormed(text)) return text;
  if (native.toWellFormed) return native.toWellFormed.call(text);
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    const isHigh = unit >= 0xd800 && unit <= 0xdbff;
    const next = text.charCodeAt(i + 1);
    if (isHigh && next >= 0xdc00 && next <= 0xdfff) {
      out += text[i]! + text[i + 1]!;
      i++;
    } else if (isHigh || (unit >= 0xdc00 && unit <= 0xdfff)) out += REPLACEMENT;
    else out += text[i]!;
  }
  return out;
}
