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
  #usePieces: boolean | undefined;

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
    // Few pieces: cost text x pieces; many short pieces: Shift-And's text x words is less.
    this.#usePieces ??= pieceCount(this.bytes) <= Math.max(4, (length + 31) >>> 5);
    if (this.#usePieces) {
      this.#pieces ??= pieceSearch(this.bytes);
      return findByPieces(bytes, this.#pieces, range);
    }
    this.#masks ??= shiftAndMasks(this.bytes);
    return findWildcard(bytes, length, this.#masks, range);
  }
}
