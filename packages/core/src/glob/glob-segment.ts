import { byteFailureTable, findBytes, findUnits, unitFailureTable } from './literal-search.js';
import { findByPieces, type PieceSearch, pieceCount, pieceSearch } from './piece-search.js';
import { utf8Bytes } from './utf8.js';
import { findWildcard, shiftAndMasks } from './wildcard-search.js';

const QUESTION = 0x3f;

/**
 * Needles up to this many UTF-16 units use native `indexOf`, which stays
 * linear for them in V8 (Boyer–Moore); longer ones use KMP, since V8's
 * search degrades past 250 units.
 */
const NATIVE_SEARCH_MAX_UNITS = 200;

/**
 * The most 32-bit words a bit-parallel (Shift-And) search of one segment
 * may take: 8 words, a 256-byte segment, keep a search of 1 MiB within
 * about 15 ms here.
 */
export const WILDCARD_SEARCH_MAX_WORDS = 8;

/**
 * The most literal pieces a longer segment with `?` may have: each piece
 * runs its own linear search over the text, about 6 ns per byte each.
 */
export const WILDCARD_SEARCH_MAX_PIECES = 3;

/**
 * True when a segment's search stays within the bounds above: no `?`
 * (a linear literal search), at most 256 bytes, or at most three pieces.
 * A glob with a segment past them is refused when it compiles, so that no
 * pattern a policy can hold takes long over a text the model composes.
 */
export function segmentSearchIsBounded(segment: Uint8Array): boolean {
  if (!segment.includes(QUESTION)) return true;
  if ((segment.length + 31) >>> 5 <= WILDCARD_SEARCH_MAX_WORDS) return true;
  return pieceCount(segment) <= WILDCARD_SEARCH_MAX_PIECES;
}

/** One run of a glob's pattern between two stars, as a linter or an index reads it. */
export interface GlobSegment {
  /** The segment as text; `?` stands for any one byte. */
  readonly text: string;
  /** The segment's UTF-8 bytes (`?` is 0x3f). */
  readonly bytes: Uint8Array;
  /** True when the segment holds a `?`. */
  readonly hasQuestion: boolean;
  /** The segment split at its `?`s: the literal runs, in order, empty runs kept. */
  readonly literals: readonly string[];
}

/** A search range: an occurrence must start at or after `from` and end at or before `end`. */
export interface SearchRange {
  readonly from: number;
  readonly end: number;
}

/** A segment with the search tables it needs, built on first use. */
export class SegmentMatcher implements GlobSegment {
  readonly text: string;
  readonly bytes: Uint8Array;
  readonly hasQuestion: boolean;
  readonly literals: readonly string[];
  readonly #onlyQuestions: boolean;
  #unitTable: Int32Array | undefined;
  #byteTable: Int32Array | undefined;
  #masks: Int32Array | undefined;
  #pieces: PieceSearch | undefined;

  constructor(text: string) {
    this.text = text;
    this.bytes = utf8Bytes(text);
    this.literals = text.split('?');
    this.hasQuestion = this.literals.length > 1;
    this.#onlyQuestions = this.literals.every((literal) => literal === '');
  }

  /** True when the segment sits at `offset` of the UTF-16 text (segment without `?` only). */
  unitsAt(text: string, offset: number): boolean {
    return text.startsWith(this.text, offset);
  }

  /** True when the segment sits at `offset` of the bytes, `?` taking any byte. */
  bytesAt(bytes: Uint8Array, offset: number): boolean {
    const pattern = this.bytes;
    if (offset < 0 || offset + pattern.length > bytes.length) return false;
    for (let index = 0; index < pattern.length; index++) {
      const expected = pattern[index]!;
      if (expected !== QUESTION && expected !== bytes[offset + index]) return false;
    }
    return true;
  }

  /** Leftmost occurrence in the UTF-16 text within the range (segment without `?` only), or -1. */
  findUnits(text: string, range: SearchRange): number {
    const needle = this.text;
    if (needle.length <= NATIVE_SEARCH_MAX_UNITS) {
      const found = text.indexOf(needle, range.from);
      return found >= 0 && found + needle.length <= range.end ? found : -1;
    }
    this.#unitTable ??= unitFailureTable(needle);
    return findUnits(text, needle, this.#unitTable, range);
  }

  /** Leftmost occurrence in the bytes within the range, `?` taking any byte, or -1. */
  findBytes(bytes: Uint8Array, range: SearchRange): number {
    const length = this.bytes.length;
    if (this.#onlyQuestions) return range.from + length <= range.end ? range.from : -1;
    if (!this.hasQuestion) {
      this.#byteTable ??= byteFailureTable(this.bytes);
      return findBytes(bytes, this.bytes, this.#byteTable, range);
    }
    // Shift-And costs text x words, about a tenth of a piece search per word: it wins up to
    // its bound; past it the segment has at most WILDCARD_SEARCH_MAX_PIECES pieces.
    if ((length + 31) >>> 5 > WILDCARD_SEARCH_MAX_WORDS) {
      this.#pieces ??= pieceSearch(this.bytes);
      return findByPieces(bytes, this.#pieces, range);
    }
    this.#masks ??= shiftAndMasks(this.bytes);
    return findWildcard(bytes, length, this.#masks, range);
  }
}
