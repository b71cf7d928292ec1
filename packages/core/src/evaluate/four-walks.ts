/**
 * How `LiteralAutomaton` reads a long text: its UTF-8 bytes, encoded
 * natively, walked by four walks at once, one over each quarter. A table
 * walk waits on each lookup before the next; four independent walks let the
 * processor overlap those waits, and reading bytes from an array is cheaper
 * than reading UTF-16 units from a string.
 */

/** How many occurrences each walk keeps before the scan gives up and the caller walks once. */
export const KEEP_LIMIT = 4096;
/** What `fourWalks` returns when a walk met more occurrences than it keeps. */
export const OVERFLOWED = -1;

/**
 * Each walk's occurrences, in the order met: walk k keeps them in
 * [k * KEEP_LIMIT, keptEnds[k]) of `keptStates` (the output state, times the
 * class count) and `keptPositions` (where the occurrence ends). Shared by
 * every automaton: evaluation is synchronous.
 */
export const keptStates = new Int32Array(4 * KEEP_LIMIT);
export const keptPositions = new Int32Array(4 * KEEP_LIMIT);
export const keptEnds = new Int32Array(4);

/** The four walks' states between `walkUntilOutput` and the code that keeps occurrences. */
const walkStates = new Int32Array(4);

/** Whether this machine stores a word's low byte first; then each walk reads four bytes per load. */
const LITTLE_ENDIAN = new Uint8Array(Uint32Array.of(1).buffer)[0] === 1;

const encoder = new TextEncoder();
/** Where texts are encoded; grown as needed. */
let scratch = new Uint8Array(4096);
/** The same memory as 32-bit words. */
let scratchWords = new Uint32Array(scratch.buffer);
/** A buffer grown past this is used once and let go, so one huge call does not hold memory. */
const KEEP_SCRATCH_BYTES = 1 << 18;

/**
 * The UTF-8 form of a text (a lone surrogate as U+FFFD), in a shared buffer
 * that the next call overwrites.
 */
export function encodeUtf8(text: string): Uint8Array {
  const needed = text.length * 3;
  let buffer = scratch;
  if (buffer.length < needed) {
    // A multiple of 4 bytes, so that the whole buffer can be read as words.
    buffer = new Uint8Array((Math.max(needed, scratch.length * 2) + 3) & ~3);
    if (buffer.length <= KEEP_SCRATCH_BYTES) {
      scratch = buffer;
      scratchWords = new Uint32Array(buffer.buffer);
    }
  }
  return buffer.subarray(0, encoder.encodeInto(text, buffer).written);
}

/** Whether four walks can read `bytes` bytes with literals of up to `overlap + 1` bytes. */
export function fitsFourWalks(bytes: number, overlap: number): boolean {
  // Each walk then reads more than `overlap` bytes on its own, which `fourWalks` relies on.
  return bytes >= 256 && overlap * 8 <= bytes;
}

/**
 * Walks `bytes` with the table in four walks and keeps every occurrence
 * (see `keptStates`); the caller reports walk 0's, then walk 1's, and so on,
 * which is ascending order. Walk k starts at k * stride (walk 0 from `step`,
 * the state after the start symbol; the others from the root) and reads
 * `width` bytes, the last stopping at the end. A walk owns the occurrences
 * that end after the first `overlap` bytes it reads (walk 0 owns all of its
 * own): each of those starts at or after its first byte, and the walk
 * before it saw every other one. Returns the last walk's state, or
 * OVERFLOWED. Needs `fitsFourWalks`. `readWords` is for tests: on a
 * big-endian machine the walks read byte by byte.
 */
export function fourWalks(
  next: Int32Array,
  byteClass: Uint16Array,
  bytes: Uint8Array,
  step: number,
  overlap: number,
  readWords = LITTLE_ENDIAN,
): number {
  const length = bytes.length;
  // A multiple of 4, so that every walk starts on a word.
  const stride = (((length - overlap + 3) >> 2) + 3) & ~3;
  const width = stride + overlap;
  // What the last walk reads; the other three read up to `width`.
  const together = length - 3 * stride;
  const words = readWords ? wordsOf(bytes) : null;
  walkStates[0] = step;
  walkStates[1] = 0;
  walkStates[2] = 0;
  walkStates[3] = 0;
  for (let walk = 0; walk < 4; walk++) keptEnds[walk] = walk * KEEP_LIMIT;
  for (let i = 0; i < together; i++) {
    i =
      words === null
        ? walkUntilOutput(next, byteClass, bytes, i, together, stride)
        : walkWordsUntilOutput(next, byteClass, bytes, words, i, together, stride);
    if (i === together) break;
    for (let walk = 0; walk < 4; walk++) {
      const state = walkStates[walk]!;
      if (state >= 0) continue;
      walkStates[walk] = ~state;
      if ((walk > 0 && i < overlap) || keep(walk, ~state, walk * stride + i + 1)) continue;
      return OVERFLOWED;
    }
  }
  // Walks 0 to 2 read up to 16 bytes more than the last one (the stride is rounded up);
  // past `together` (more than `overlap` bytes into each walk) all they meet is their own.
  for (let walk = 0; walk < 3; walk++) {
    const from = walk * stride;
    if (!walkKeeping(next, byteClass, bytes, walk, from + together, from + width))
      return OVERFLOWED;
  }
  return walkStates[3]!;
}

/** The words of an encoded text (which starts a buffer whose length is a multiple of 4). */
function wordsOf(bytes: Uint8Array): Uint32Array {
  if (bytes.buffer === scratch.buffer) return scratchWords;
  return new Uint32Array(bytes.buffer, 0, bytes.buffer.byteLength >> 2);
}

/** Keeps an occurrence of a walk; false when its list is full. */
function keep(walk: number, state: number, end: number): boolean {
  const at = keptEnds[walk]!;
  if (at === (walk + 1) * KEEP_LIMIT) return false;
  keptStates[at] = state;
  keptPositions[at] = end;
  keptEnds[walk] = at + 1;
  return true;
}

/**
 * The tight loop, apart so that it holds nothing else in registers: from
 * byte `from` of walk 0 (walk k reads `k * stride` further on) it walks
 * until one of the four meets an output state or `to`, and returns where it
 * stopped, with the states (output bits included) in `walkStates`.
 */
function walkUntilOutput(
  next: Int32Array,
  byteClass: Uint16Array,
  bytes: Uint8Array,
  from: number,
  to: number,
  stride: number,
): number {
  let a = walkStates[0]!;
  let b = walkStates[1]!;
  let c = walkStates[2]!;
  let d = walkStates[3]!;
  const from1 = stride;
  const from2 = 2 * stride;
  const from3 = 3 * stride;
  let i = from;
  for (; i < to; i++) {
    a = next[a + byteClass[bytes[i]!]!]!;
    b = next[b + byteClass[bytes[from1 + i]!]!]!;
    c = next[c + byteClass[bytes[from2 + i]!]!]!;
    d = next[d + byteClass[bytes[from3 + i]!]!]!;
    if ((a | b | c | d) < 0) break;
  }
  walkStates[0] = a;
  walkStates[1] = b;
  walkStates[2] = c;
  walkStates[3] = d;
  return i;
}

/**
 * `walkUntilOutput`, reading each walk's bytes four at a time from `words`
 * (little-endian: the low byte first) once it is on a word boundary.
 */
function walkWordsUntilOutput(
  next: Int32Array,
  byteClass: Uint16Array,
  bytes: Uint8Array,
  words: Uint32Array,
  from: number,
  to: number,
  stride: number,
): number {
  let i = from;
  // Up to the next word boundary (after an output state the walks resume mid-word).
  const aligned = Math.min(to, (from + 3) & ~3);
  if (i < aligned) {
    i = walkUntilOutput(next, byteClass, bytes, i, aligned, stride);
    if (i < aligned) return i;
  }
  let a = walkStates[0]!;
  let b = walkStates[1]!;
  let c = walkStates[2]!;
  let d = walkStates[3]!;
  const words1 = stride >> 2;
  const words2 = 2 * words1;
  const words3 = 3 * words1;
  let stop = -1;
  for (; i + 4 <= to; i += 4) {
    const k = i >> 2;
    const w = words[k]!;
    const x = words[words1 + k]!;
    const y = words[words2 + k]!;
    const z = words[words3 + k]!;
    a = next[a + byteClass[w & 0xff]!]!;
    b = next[b + byteClass[x & 0xff]!]!;
    c = next[c + byteClass[y & 0xff]!]!;
    d = next[d + byteClass[z & 0xff]!]!;
    if ((a | b | c | d) < 0) {
      stop = i;
      break;
    }
    a = next[a + byteClass[(w >>> 8) & 0xff]!]!;
    b = next[b + byteClass[(x >>> 8) & 0xff]!]!;
    c = next[c + byteClass[(y >>> 8) & 0xff]!]!;
    d = next[d + byteClass[(z >>> 8) & 0xff]!]!;
    if ((a | b | c | d) < 0) {
      stop = i + 1;
      break;
    }
    a = next[a + byteClass[(w >>> 16) & 0xff]!]!;
    b = next[b + byteClass[(x >>> 16) & 0xff]!]!;
    c = next[c + byteClass[(y >>> 16) & 0xff]!]!;
    d = next[d + byteClass[(z >>> 16) & 0xff]!]!;
    if ((a | b | c | d) < 0) {
      stop = i + 2;
      break;
    }
    a = next[a + byteClass[w >>> 24]!]!;
    b = next[b + byteClass[x >>> 24]!]!;
    c = next[c + byteClass[y >>> 24]!]!;
    d = next[d + byteClass[z >>> 24]!]!;
    if ((a | b | c | d) < 0) {
      stop = i + 3;
      break;
    }
  }
  walkStates[0] = a;
  walkStates[1] = b;
  walkStates[2] = c;
  walkStates[3] = d;
  if (stop >= 0) return stop;
  // The last few bytes, fewer than a word.
  return i < to ? walkUntilOutput(next, byteClass, bytes, i, to, stride) : i;
}

/** One walk's tail over bytes[from, to), keeping its occurrences; false when its list fills. */
function walkKeeping(
  next: Int32Array,
  byteClass: Uint16Array,
  bytes: Uint8Array,
  walk: number,
  from: number,
  to: number,
): boolean {
  let step = walkStates[walk]!;
  for (let i = from; i < to; i++) {
    step = next[step + byteClass[bytes[i]!]!]!;
    if (step < 0) {
      step = ~step;
      if (!keep(walk, step, i + 1)) return false;
    }
  }
  walkStates[walk] = step;
  return true;
}
