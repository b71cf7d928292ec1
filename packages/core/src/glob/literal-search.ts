/**
 * Knuth–Morris–Pratt search: the leftmost occurrence of a needle in linear
 * time whatever the needle and the haystack, which native `indexOf` does not
 * promise for long needles.
 */

/** The KMP failure table of a sequence read through `at`. */
function failureTable(length: number, at: (index: number) => number): Int32Array {
  const table = new Int32Array(length);
  let k = 0;
  for (let i = 1; i < length; i++) {
    while (k > 0 && at(i) !== at(k)) k = table[k - 1]!;
    if (at(i) === at(k)) k++;
    table[i] = k;
  }
  return table;
}

/** The failure table of a UTF-16 needle. */
export function unitFailureTable(needle: string): Int32Array {
  return failureTable(needle.length, (index) => needle.charCodeAt(index));
}

/** The failure table of a byte needle. */
export function byteFailureTable(needle: Uint8Array): Int32Array {
  return failureTable(needle.length, (index) => needle[index]!);
}

/**
 * Leftmost start in [from, end - needle.length] where `needle` occurs in the
 * UTF-16 units of `text`, or -1. Linear in the units read.
 */
export function findUnits(
  text: string,
  needle: string,
  table: Int32Array,
  range: { from: number; end: number },
): number {
  const length = needle.length;
  if (length === 0) return range.from <= range.end ? range.from : -1;
  let k = 0;
  for (let i = range.from; i < range.end; i++) {
    const unit = text.charCodeAt(i);
    while (k > 0 && unit !== needle.charCodeAt(k)) k = table[k - 1]!;
    if (unit === needle.charCodeAt(k)) k++;
    if (k === length) return i - length + 1;
  }
  return -1;
}

/** The same search over bytes. */
export function findBytes(
  bytes: Uint8Array,
  needle: Uint8Array,
  table: Int32Array,
  range: { from: number; end: number },
): number {
  const length = needle.length;
  if (length === 0) return range.from <= range.end ? range.from : -1;
  let k = 0;
  for (let i = range.from; i < range.end; i++) {
    const byte = bytes[i]!;
    while (k > 0 && byte !== needle[k]) k = table[k - 1]!;
    if (byte === needle[k]) k++;
    if (k === length) return i - length + 1;
  }
  return -1;
}
