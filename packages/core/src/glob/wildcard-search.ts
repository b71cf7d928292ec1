/**
 * Shift-And (bit-parallel) search for a byte segment holding `?`: each text
 * byte updates one bit per pattern byte, 32 at a time, so the cost is
 * text x ceil(segment / 32) word steps at worst and never backtracks. Only
 * the words that can hold a live bit are updated.
 */

const QUESTION = 0x3f;

/** For each byte value, the pattern positions it may stand at, as 32-bit words. */
export function shiftAndMasks(segment: Uint8Array): Int32Array {
  const words = (segment.length + 31) >>> 5;
  const masks = new Int32Array(256 * words);
  for (let position = 0; position < segment.length; position++) {
    const word = position >>> 5;
    const bit = 1 << (position & 31);
    const byte = segment[position]!;
    if (byte === QUESTION) {
      for (let value = 0; value < 256; value++) masks[value * words + word]! |= bit;
    } else masks[byte * words + word]! |= bit;
  }
  return masks;
}

/**
 * Leftmost start in [from, end - segment length] where the segment (with `?`
 * as any byte) occurs in `bytes`, or -1.
 */
export function findWildcard(
  bytes: Uint8Array,
  length: number,
  masks: Int32Array,
  range: { from: number; end: number },
): number {
  const { from, end } = range;
  if (length === 0) return from <= end ? from : -1;
  if (from + length > end) return -1;
  const words = (length + 31) >>> 5;
  const topWord = words - 1;
  const topBit = 1 << ((length - 1) & 31);
  if (words === 1) {
    let state = 0;
    for (let i = from; i < end; i++) {
      state = ((state << 1) | 1) & masks[bytes[i]!]!;
      if ((state & topBit) !== 0) return i - length + 1;
    }
    return -1;
  }
  const state = new Int32Array(words);
  let live = 0;
  for (let i = from; i < end; i++) {
    const row = bytes[i]! * words;
    const limit = Math.min(live, topWord);
    let carry = 1;
    let highest = -1;
    for (let word = 0; word <= limit; word++) {
      const old = state[word]!;
      const next = ((old << 1) | carry) & masks[row + word]!;
      carry = old >>> 31;
      state[word] = next;
      if (next !== 0) highest = word;
    }
    if ((state[topWord]! & topBit) !== 0) return i - length + 1;
    live = highest + 1;
  }
  return -1;
}
