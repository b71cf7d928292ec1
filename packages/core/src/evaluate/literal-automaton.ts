/**
 * An Aho–Corasick automaton over UTF-8 bytes that reports, in one pass over
 * a text, which of its literals occur in it and where. The text is read as
 * its UTF-8 form, a lone surrogate as U+FFFD, which is how globs read it; so
 * every position it reports is a byte offset into that form.
 */

import type { TextSource } from '../path/tool-input-path.js';
import {
  type AnchoredLiteral,
  type AutomatonTable,
  buildAutomatonTable,
  END,
  START,
} from './automaton-table.js';
import {
  encodeUtf8,
  fitsFourWalks,
  fourWalks,
  KEEP_LIMIT,
  keptEnds,
  keptPositions,
  keptStates,
  OVERFLOWED,
} from './four-walks.js';

export { type AnchoredLiteral, literalKey } from './automaton-table.js';

/**
 * Texts this long or longer are encoded to UTF-8 first (natively, a fraction
 * of a nanosecond per unit) and read by four walks at once over those bytes;
 * shorter ones are walked unit by unit, where the native call and the four
 * walks' overlap would cost more than they save.
 */
const BYTE_SCAN_MIN_UNITS = 256;

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
  readonly #inverseClasses: number;
  readonly #byteClass: Uint16Array;
  readonly #next: Int32Array;
  readonly #literalAt: Int32Array;
  readonly #outputLink: Int32Array;
  /** 1 for a state whose output chain spells a literal whose last end is wanted. */
  readonly #tracksLast: Uint8Array;
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
  /** After a scan: where each found literal whose last end was wanted last ends. */
  readonly lastEnd: Int32Array;
  /** After a scan: the length of the text's UTF-8 form. */
  scannedBytes = 0;

  private constructor(table: AutomatonTable) {
    const literalCount = table.literalBytes.length;
    this.#classes = table.classes;
    this.#inverseClasses = 1 / table.classes;
    this.#byteClass = table.byteClass;
    this.#next = table.next;
    this.#literalAt = table.literalAt;
    this.#outputLink = table.outputLink;
    this.#tracksLast = table.tracksLast;
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
   * returns null when its table would pass the size bound. A scan tracks
   * where a literal last ends only when `lastWanted` says so (every literal
   * when omitted): that costs a little on every occurrence.
   */
  static build(
    literals: readonly AnchoredLiteral[],
    lastWanted: (literal: number) => boolean = () => true,
  ): LiteralAutomaton | null {
    const table = buildAutomatonTable(literals, lastWanted);
    return table === null ? null : new LiteralAutomaton(table);
  }

  /**
   * Scans `text` once and lists in `found` the index of every literal that
   * occurs in it (each once), returning how many; `firstEnd` then holds, for
   * each found literal, where its first occurrence ends and, for a literal
   * built with its last end wanted, `lastEnd` where its last one ends.
   * Linear in the text plus the literals reported.
   *
   * A long text is read as UTF-8 bytes by four walks at once (`four-walks.ts`);
   * a short one unit by unit.
   */
  scan(source: TextSource): number {
    if (typeof source !== 'string') return this.#scanParts(source);
    const text = source;
    if (text.length < BYTE_SCAN_MIN_UNITS) {
      const last = this.#walkUnits(text, this.#begin(), 0);
      return this.#finish(last);
    }
    const bytes = encodeUtf8(text);
    this.scannedBytes = bytes.length;
    const overlap = this.#longestBytes - 1;
    if (fitsFourWalks(bytes.length, overlap)) {
      const last = fourWalks(this.#next, this.#byteClass, bytes, this.#begin(), overlap);
      if (last !== OVERFLOWED) {
        for (let walk = 0; walk < 4; walk++) {
          for (let k = walk * KEEP_LIMIT; k < keptEnds[walk]!; k++)
            this.#hit(keptStates[k]!, keptPositions[k]!);
        }
        return this.#finish(last);
      }
      // So many occurrences that a walk's list overflowed: read the bytes again, in one walk.
    }
    const last = this.#walkBytes(bytes, this.#begin());
    return this.#finish(last);
  }

  /**
   * `scan` for strings that stand for their join by single spaces (an
   * argv): each is walked in turn, with a space between, so that the joined
   * string is built only when it is long.
   */
  #scanParts(parts: readonly string[]): number {
    let units = parts.length - 1;
    for (let p = 0; p < parts.length; p++) units += parts[p]!.length;
    if (units >= BYTE_SCAN_MIN_UNITS) return this.scan(parts.join(' '));
    let step = this.#begin();
    let offset = 0;
    for (let p = 0; p < parts.length; p++) {
      if (p > 0) step = this.#stepByte(step, 0x20, ++offset);
      step = this.#walkUnits(parts[p]!, step, offset);
      offset = this.scannedBytes;
    }
    this.scannedBytes = offset;
    return this.#finish(step);
  }

  /** Starts a scan (a new epoch, nothing found) and reads the start symbol; returns the state. */
  #begin(): number {
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
    this.#hit(~step, 0);
    return ~step;
  }

  /** Reads the end symbol after the walk that read the text's last byte, and settles `lastEnd`. */
  #finish(step: number): number {
    const end = this.#next[step + END]!;
    if (end < 0) this.#hit(~end, this.scannedBytes);
    if (this.#visitedCount > 0) this.#spreadLastEnds();
    return this.#count;
  }

  /**
   * One walk over a short text's UTF-16 units, feeding the automaton the
   * UTF-8 bytes they encode: an ASCII unit is its own byte; any other
   * character goes through `#stepCodePoint`. The text starts `offset` bytes
   * into what is scanned; sets `scannedBytes` to where it ends.
   */
  #walkUnits(text: string, step: number, offset: number): number {
    const next = this.#next;
    const byteClass = this.#byteClass;
    const length = text.length;
    // Bytes before the text, plus UTF-8 bytes read so far minus UTF-16 units read so far.
    let shift = offset;
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
        this.#hit(step, i + 1 + shift);
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
      step = this.#stepCodePoint(step, codePoint, i + shift);
      shift += (codePoint < 0x800 ? 2 : codePoint < 0x10000 ? 3 : 4) - units;
      i += units - 1;
    }
    this.scannedBytes = length + shift;
    return step;
  }

  /** Feeds the UTF-8 bytes of one non-ASCII code point whose first byte is at offset `at`. */
  #stepCodePoint(step: number, codePoint: number, at: number): number {
    if (codePoint < 0x800) {
      step = this.#stepByte(step, 0xc0 | (codePoint >> 6), at + 1);
    } else {
      if (codePoint < 0x10000) {
        step = this.#stepByte(step, 0xe0 | (codePoint >> 12), at + 1);
      } else {
        step = this.#stepByte(step, 0xf0 | (codePoint >> 18), at + 1);
        step = this.#stepByte(step, 0x80 | ((codePoint >> 12) & 0x3f), ++at + 1);
      }
      step = this.#stepByte(step, 0x80 | ((codePoint >> 6) & 0x3f), ++at + 1);
    }
    return this.#stepByte(step, 0x80 | (codePoint & 0x3f), ++at + 1);
  }

  #stepByte(step: number, byte: number, end: number): number {
    const target = this.#next[step + this.#byteClass[byte]!]!;
    if (target >= 0) return target;
    this.#hit(~target, end);
    return ~target;
  }

  /** One walk over all of `bytes` from `step`, reporting as it goes; returns where it ends. */
  #walkBytes(bytes: Uint8Array, step: number): number {
    const next = this.#next;
    const byteClass = this.#byteClass;
    for (let i = 0; i < bytes.length; i++) {
      step = next[step + byteClass[bytes[i]!]!]!;
      if (step < 0) {
        step = ~step;
        this.#hit(step, i + 1);
      }
    }
    return step;
  }

  /**
   * The state number of a table offset (a multiple of the class count): by
   * a multiplication, since a division by a variable is several times
   * slower. Exact: the product is within 2^-31 of a whole number.
   */
  #stateOf(premultiplied: number): number {
    return (premultiplied * this.#inverseClasses + 0.5) | 0;
  }

  /** A state with output met at `position` (premultiplied by the class count). */
  #hit(premultiplied: number, position: number): void {
    const state = this.#stateOf(premultiplied);
    if (this.#tracksLast[state] === 1) {
      if (this.#visitedEpoch[state] === this.#epoch) this.#lastVisit[state] = position;
      else this.#visit(premultiplied, position, true);
    } else if (this.#seen[state] !== this.#epoch) this.#visit(premultiplied, position, false);
  }

  /** A state with output met for the first time in this scan: reports the literals of its chain not yet seen. */
  #visit(premultiplied: number, position: number, trackLast: boolean): void {
    const seen = this.#seen;
    const epoch = this.#epoch;
    const state = this.#stateOf(premultiplied);
    if (trackLast) {
      this.#visitedEpoch[state] = epoch;
      this.#lastVisit[state] = position;
      this.#visited[this.#visitedCount++] = state;
    }
    let at = premultiplied;
    while (at >= 0) {
      const index = this.#stateOf(at);
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
        const index = this.#stateOf(at);
        const literal = this.#literalAt[index]!;
        if (literal >= 0 && this.lastEnd[literal]! < position) this.lastEnd[literal] = position;
        at = this.#outputLink[index]!;
      }
    }
  }
}
