/**
 * An Aho–Corasick automaton over UTF-8 bytes that reports, in one pass over
 * a text, which of its literals occur in it and where. The text is read as
 * its UTF-8 form, a lone surrogate as U+FFFD, which is how globs read it; so
 * every position it reports is a byte offset into that form.
 */

import {
  type AnchoredLiteral,
  type AutomatonTable,
  buildAutomatonTable,
  END,
  START,
} from './automaton-table.js';

export { type AnchoredLiteral, literalKey } from './automaton-table.js';

/**
 * Texts this long or longer are encoded to UTF-8 first (natively, a fraction
 * of a nanosecond per unit) and read by four walks at once over those bytes;
 * shorter ones are walked unit by unit, where the native call and the four
 * walks' overlap would cost more than they save.
 */
const BYTE_SCAN_MIN_UNITS = 256;
/** How many occurrences each of the later walks keeps before the scan falls back to one walk. */
const PENDING_LIMIT = 4096;
const OVERFLOWED = -1;

const encoder = new TextEncoder();
/** The UTF-8 form of the text being scanned (evaluation is synchronous, so all automata share it). */
let scratch = new Uint8Array(4096);
/** A scratch buffer grown past this is used once and let go, so one huge call does not hold memory. */
const KEEP_SCRATCH_BYTES = 1 << 18;
/** Occurrences of walks 1 to 3, kept in order until walk 0 is done: walk k uses [k * LIMIT, (k + 1) * LIMIT). */
const pendingStates = new Int32Array(4 * PENDING_LIMIT);
const pendingEnds = new Int32Array(4 * PENDING_LIMIT);

/** A buffer that holds the UTF-8 form of any text of `units` UTF-16 units. */
function scratchFor(units: number): Uint8Array {
  const needed = units * 3;
  if (scratch.length >= needed) return scratch;
  const buffer = new Uint8Array(Math.max(needed, scratch.length * 2));
  if (buffer.length <= KEEP_SCRATCH_BYTES) scratch = buffer;
  return buffer;
}

/**
 * The automaton itself: build it once from distinct literals, then `scan`
 * texts; after each scan `found`, `firstEnd`, `lastEnd` and `scannedBytes`
 * describe what occurred. Its scratch state makes it single-use at a time
 * (evaluation is synchronous, so one policy may share it across calls).
 */
export class LiteralAutomaton {
  readonly literalCount: number;
  /** Each literal's length in UTF-8 bytes. */
  readonly literalBytes: Int32Array;
  readonly #classes: number;
  readonly #byteClass: Uint16Array;
  readonly #next: Int32Array;
  readonly #literalAt: Int32Array;
  readonly #outputLink: Int32Array;
  readonly #longestBytes: number;
  readonly #seen: Int32Array;
  readonly #visitedEpoch: Int32Array;
  readonly #lastVisit: Int32Array;
  readonly #visited: Int32Array;
  #visitedCount = 0;
  #count = 0;
  #epoch = 0;
  /** After a scan: the literals found, in the order first met. */
  readonly found: Int32Array;
  /** After a scan: where each found literal first ends (a byte offset of the text's UTF-8 form). */
  readonly firstEnd: Int32Array;
  /** After a scan that tracked it: where each found literal last ends. */
  readonly lastEnd: Int32Array;
  /** After a scan: the length of the text's UTF-8 form. */
  scannedBytes = 0;

  private constructor(table: AutomatonTable, literalCount: number) {
    this.#classes = table.classes;
    this.#byteClass = table.byteClass;
    this.#next = table.next;
    this.#literalAt = table.literalAt;
    this.#outputLink = table.outputLink;
    this.#longestBytes = table.longestBytes;
    this.literalBytes = table.literalBytes;
    this.literalCount = literalCount;
    const states = table.literalAt.length;
    this.#seen = new Int32Array(states);
    this.#visitedEpoch = new Int32Array(states);
    this.#lastVisit = new Int32Array(states);
    this.#visited = new Int32Array(states);
    this.found = new Int32Array(literalCount);
    this.firstEnd = new Int32Array(literalCount);
    this.lastEnd = new Int32Array(literalCount);
  }

  /**
   * Builds the automaton for distinct literals (literal i reports as i), or
   * returns null when its table would pass the size bound.
   */
  static build(literals: readonly AnchoredLiteral[]): LiteralAutomaton | null {
    const table = buildAutomatonTable(literals);
    return table === null ? null : new LiteralAutomaton(table, literals.length);
  }

  /**
   * Scans `text` once and lists in `found` the index of every literal that
   * occurs in it (each once), returning how many; `firstEnd` then holds, for
   * each found literal, where its first occurrence ends and, with
   * `trackLast`, `lastEnd` where its last one ends. Linear in the text plus
   * the literals reported.
   *
   * A long text is read by four walks at once, one over each quarter of its
   * bytes (each later walk starting early by the longest literal, so no
   * occurrence falls between): a table walk waits on each lookup before the
   * next, and independent walks let the processor overlap those waits.
   */
  scan(text: string, trackLast: boolean): number {
    if (text.length < BYTE_SCAN_MIN_UNITS) {
      const last = this.#walkUnits(text, this.#begin(trackLast), trackLast);
      return this.#finish(last, trackLast);
    }
    const bytes = scratchFor(text.length);
    const length = encoder.encodeInto(text, bytes).written;
    this.scannedBytes = length;
    const overlap = this.#longestBytes - 1;
    if (overlap * 8 <= length) {
      const last = this.#fourWalks(bytes, length, this.#begin(trackLast), overlap, trackLast);
      if (last !== OVERFLOWED) return this.#finish(last, trackLast);
      // So many occurrences that a later walk's list overflowed: read the bytes again, in one walk.
    }
    const last = this.#walkBytes(bytes, this.#begin(trackLast), 0, length, trackLast);
    return this.#finish(last, trackLast);
  }

  /** Starts a scan (a new epoch, nothing found) and reads the start symbol; returns the state. */
  #begin(trackLast: boolean): number {
    if (this.#epoch === 0x7fffffff) {
      this.#seen.fill(0);
      this.#visitedEpoch.fill(0);
      this.#epoch = 0;
    }
    this.#epoch++;
    this.#count = 0;
    this.#visitedCount = 0;
    const step = this.#next[START]!;
    if (step >= 0) return step;
    this.#hit(~step, 0, trackLast);
    return ~step;
  }

  /** Reads the end symbol after the walk that read the text's last byte, and settles `lastEnd`. */
  #finish(step: number, trackLast: boolean): number {
    const end = this.#next[step + END]!;
    if (end < 0) this.#hit(~end, this.scannedBytes, trackLast);
    if (trackLast) this.#spreadLastEnds();
    return this.#count;
  }

  /**
   * One walk over a short text's UTF-16 units, feeding the automaton the
   * UTF-8 bytes they encode: an ASCII unit is its own byte; any other
   * character goes through `#stepCodePoint`. Sets `scannedBytes`.
   */
  #walkUnits(text: string, step: number, trackLast: boolean): number {
    const next = this.#next;
    const byteClass = this.#byteClass;
    const length = text.length;
    // UTF-8 bytes read so far minus UTF-16 units read so far.
    let shift = 0;
    for (let i = 0; i < length; i++) {
      // The tight loop reads ASCII and meets no output; anything else drops to the code below it.
      let unit = 0;
      for (; i < length; i++) {
        unit = text.charCodeAt(i);
        if (unit >= 0x80) break;
        step = next[step + byteClass[unit]!]!;
        if (step < 0) break;
      }
      if (i === length) break;
      if (unit < 0x80) {
        step = ~step;
        this.#hit(step, i + 1 + shift, trackLast);
        continue;
      }
      let codePoint = unit;
      let units = 1;
      if (unit >= 0xd800 && unit <= 0xdfff) {
        const low = text.charCodeAt(i + 1);
        if (unit <= 0xdbff && low >= 0xdc00 && low <= 0xdfff) {
          codePoint = ((unit - 0xd800) << 10) + (low - 0xdc00) + 0x10000;
          units = 2;
        } else codePoint = 0xfffd;
      }
      step = this.#stepCodePoint(step, codePoint, i + shift, trackLast);
      shift += (codePoint < 0x800 ? 2 : codePoint < 0x10000 ? 3 : 4) - units;
      i += units - 1;
    }
    this.scannedBytes = length + shift;
    return step;
  }

  /** Feeds the UTF-8 bytes of one non-ASCII code point whose first byte is at offset `at`. */
  #stepCodePoint(step: number, codePoint: number, at: number, trackLast: boolean): number {
    if (codePoint < 0x800) {
      step = this.#stepByte(step, 0xc0 | (codePoint >> 6), at + 1, trackLast);
    } else {
      if (codePoint < 0x10000) {
        step = this.#stepByte(step, 0xe0 | (codePoint >> 12), at + 1, trackLast);
      } else {
        step = this.#stepByte(step, 0xf0 | (codePoint >> 18), at + 1, trackLast);
        step = this.#stepByte(step, 0x80 | ((codePoint >> 12) & 0x3f), ++at + 1, trackLast);
      }
      step = this.#stepByte(step, 0x80 | ((codePoint >> 6) & 0x3f), ++at + 1, trackLast);
    }
    return this.#stepByte(step, 0x80 | (codePoint & 0x3f), ++at + 1, trackLast);
  }

  #stepByte(step: number, byte: number, end: number, trackLast: boolean): number {
    const target = this.#next[step + this.#byteClass[byte]!]!;
    if (target >= 0) return target;
    this.#hit(~target, end, trackLast);
    return ~target;
  }

  /** One walk over bytes[from, to) from `step`, reporting as it goes; returns where it ends. */
  #walkBytes(
    bytes: Uint8Array,
    step: number,
    from: number,
    to: number,
    trackLast: boolean,
  ): number {
    const next = this.#next;
    const byteClass = this.#byteClass;
    for (let i = from; i < to; i++) {
      step = next[step + byteClass[bytes[i]!]!]!;
      if (step < 0) {
        step = ~step;
        this.#hit(step, i + 1, trackLast);
      }
    }
    return step;
  }

  /**
   * Four walks at once over bytes[0, length). Walk k starts from the root at
   * k * stride (walk 0 from `step`, after the start symbol) and reads `width`
   * bytes (the last stops at the end); it owns the occurrences that end
   * after the first `overlap` bytes it reads (walk 0 owns all of its own),
   * since each of those starts at or after its first byte. Walk 0 reports as
   * it goes; walks 1 to 3 keep theirs in order and report after it, so
   * positions reach `#hit` ascending. Returns the last walk's state, or
   * OVERFLOWED when a walk met more occurrences than it keeps.
   */
  #fourWalks(
    bytes: Uint8Array,
    length: number,
    step: number,
    overlap: number,
    trackLast: boolean,
  ): number {
    const next = this.#next;
    const byteClass = this.#byteClass;
    const width = (length + 3 * overlap + 3) >> 2;
    const stride = width - overlap;
    const from1 = stride;
    const from2 = 2 * stride;
    const from3 = 3 * stride;
    const together = length - from3;
    const states = walkStates;
    states[0] = step;
    states[1] = 0;
    states[2] = 0;
    states[3] = 0;
    let kept1 = PENDING_LIMIT;
    let kept2 = 2 * PENDING_LIMIT;
    let kept3 = 3 * PENDING_LIMIT;
    for (let i = 0; i < together; i++) {
      i = walkFourUntilOutput(next, byteClass, bytes, i, together, stride);
      if (i === together) break;
      let a: number = states[0]!;
      let b: number = states[1]!;
      let c: number = states[2]!;
      let d: number = states[3]!;
      const owned = i + 1 > overlap;
      if (a < 0) {
        a = ~a;
        this.#hit(a, i + 1, trackLast);
      }
      if (b < 0) {
        b = ~b;
        if (owned) {
          if (kept1 === 2 * PENDING_LIMIT) return OVERFLOWED;
          pendingStates[kept1] = b;
          pendingEnds[kept1++] = from1 + i + 1;
        }
      }
      if (c < 0) {
        c = ~c;
        if (owned) {
          if (kept2 === 3 * PENDING_LIMIT) return OVERFLOWED;
          pendingStates[kept2] = c;
          pendingEnds[kept2++] = from2 + i + 1;
        }
      }
      if (d < 0) {
        d = ~d;
        if (owned) {
          if (kept3 === 4 * PENDING_LIMIT) return OVERFLOWED;
          pendingStates[kept3] = d;
          pendingEnds[kept3++] = from3 + i + 1;
        }
      }
      states[0] = a;
      states[1] = b;
      states[2] = c;
      states[3] = d;
    }
    const a = states[0]!;
    const b = states[1]!;
    const c = states[2]!;
    const d = states[3]!;
    // Walks 0 to 2 read a few bytes more than the last one (the division's remainder).
    this.#walkBytes(bytes, a, together, width, trackLast);
    // Past `together` every occurrence of walks 1 and 2 is their own (together > overlap,
    // since the text holds at least 256 bytes and eight times the overlap).
    kept1 = keepWalking(
      next,
      byteClass,
      bytes,
      b,
      from1 + together,
      from1 + width,
      kept1,
      2 * PENDING_LIMIT,
    );
    if (kept1 !== OVERFLOWED)
      kept2 = keepWalking(
        next,
        byteClass,
        bytes,
        c,
        from2 + together,
        from2 + width,
        kept2,
        3 * PENDING_LIMIT,
      );
    if (kept1 === OVERFLOWED || kept2 === OVERFLOWED) return OVERFLOWED;
    for (let p = PENDING_LIMIT; p < kept1; p++)
      this.#hit(pendingStates[p]!, pendingEnds[p]!, trackLast);
    for (let p = 2 * PENDING_LIMIT; p < kept2; p++)
      this.#hit(pendingStates[p]!, pendingEnds[p]!, trackLast);
    for (let p = 3 * PENDING_LIMIT; p < kept3; p++)
      this.#hit(pendingStates[p]!, pendingEnds[p]!, trackLast);
    return d;
  }

  /** A state with output met at `position` (premultiplied by the class count). */
  #hit(premultiplied: number, position: number, trackLast: boolean): void {
    const state = premultiplied / this.#classes;
    if (trackLast) {
      if (this.#visitedEpoch[state] === this.#epoch) this.#lastVisit[state] = position;
      else this.#visit(premultiplied, position, true);
    } else if (this.#seen[state] !== this.#epoch) this.#visit(premultiplied, position, false);
  }

  /** A state with output met for the first time in this scan: reports the literals of its chain not yet seen. */
  #visit(premultiplied: number, position: number, trackLast: boolean): void {
    const classes = this.#classes;
    const seen = this.#seen;
    const epoch = this.#epoch;
    const state = premultiplied / classes;
    if (trackLast) {
      this.#visitedEpoch[state] = epoch;
      this.#lastVisit[state] = position;
      this.#visited[this.#visitedCount++] = state;
    }
    let at = premultiplied;
    while (at >= 0) {
      const index = at / classes;
      if (seen[index] === epoch) break;
      seen[index] = epoch;
      const literal = this.#literalAt[index]!;
      if (literal >= 0) {
        this.found[this.#count++] = literal;
        this.firstEnd[literal] = position;
        this.lastEnd[literal] = position;
      }
      at = this.#outputLink[index]!;
    }
  }

  /** Gives each found literal the last position of any visited state whose chain spells it. */
  #spreadLastEnds(): void {
    const classes = this.#classes;
    for (let v = 0; v < this.#visitedCount; v++) {
      const state = this.#visited[v]!;
      const position = this.#lastVisit[state]!;
      let at = state * classes;
      while (at >= 0) {
        const index = at / classes;
        const literal = this.#literalAt[index]!;
        if (literal >= 0 && this.lastEnd[literal]! < position) this.lastEnd[literal] = position;
        at = this.#outputLink[index]!;
      }
    }
  }
}

/** The four walks' states between `walkFourUntilOutput` and the code that reports. */
const walkStates = new Int32Array(4);

/**
 * The four walks' tight loop, kept apart so that it holds nothing else in
 * registers: from byte `from` of walk 0 (walk k reads `k * stride` further
 * on), it walks until one of them meets an output state or `to`; returns
 * where it stopped, the states (output bits included) in `walkStates`.
 */
function walkFourUntilOutput(
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
 * The tail of one of walks 1 and 2 over bytes[from, to): keeps its
 * occurrences after `kept`, up to `limit`; returns the new end of its
 * list, or OVERFLOWED.
 */
function keepWalking(
  next: Int32Array,
  byteClass: Uint16Array,
  bytes: Uint8Array,
  step: number,
  from: number,
  to: number,
  kept: number,
  limit: number,
): number {
  for (let i = from; i < to; i++) {
    step = next[step + byteClass[bytes[i]!]!]!;
    if (step < 0) {
      step = ~step;
      if (kept === limit) return OVERFLOWED;
      pendingStates[kept] = step;
      pendingEnds[kept++] = i + 1;
    }
  }
  return kept;
}
