/**
 * Search for a byte segment holding `?` by its literal pieces: each piece
 * (a run between `?`s) runs its own KMP over the text in step with the
 * others, and every occurrence votes for the segment start it implies; the
 * first start with a vote from every piece is the leftmost occurrence. The
 * cost is text x pieces, whatever the segment's length, which beats
 * Shift-And's text x length/32 for long segments with few `?` runs.
 */
import { byteFailureTable } from './literal-search.js';

/** A literal run of a segment at its byte offset. */
interface Piece {
  readonly bytes: Uint8Array;
  readonly offset: number;
  readonly table: Int32Array;
}

/** A segment prepared for piece search. */
export interface PieceSearch {
  readonly length: number;
  readonly pieces: readonly Piece[];
}

const QUESTION = 0x3f;

/** Splits a segment's bytes at `?` into its nonempty pieces. */
export function pieceSearch(segment: Uint8Array): PieceSearch {
  const pieces: Piece[] = [];
  let start = -1;
  for (let i = 0; i <= segment.length; i++) {
    const isQuestion = i === segment.length || segment[i] === QUESTION;
    if (!isQuestion && start < 0) start = i;
    if (isQuestion && start >= 0) {
      const bytes = segment.subarray(start, i);
      pieces.push({ bytes, offset: start, table: byteFailureTable(bytes) });
      start = -1;
    }
  }
  return { length: segment.length, pieces };
}

/** How many nonempty pieces the segment has (without building the tables). */
export function pieceCount(segment: Uint8Array): number {
  let count = 0;
  for (let i = 0; i < segment.length; i++) {
    if (segment[i] !== QUESTION && (i === 0 || segment[i - 1] === QUESTION)) count++;
  }
  return count;
}

/**
 * Leftmost start in [from, end - length] where every piece sits at its
 * offset, or -1. The segment must have at least one piece.
 */
export function findByPieces(
  bytes: Uint8Array,
  search: PieceSearch,
  range: { from: number; end: number },
): number {
  const { from, end } = range;
  const { length, pieces } = search;
  const lastStart = end - length;
  if (from > lastStart) return -1;
  const count = pieces.length;
  let size = 1;
  while (size <= length) size <<= 1;
  const mask = size - 1;
  const votes = new Int32Array(size);
  const owners = new Int32Array(size).fill(-1);
  const states = new Int32Array(count);
  for (let t = from; t < end; t++) {
    const byte = bytes[t]!;
    for (let p = 0; p < count; p++) {
      const piece = pieces[p]!;
      const needle = piece.bytes;
      let k = states[p]!;
      while (k > 0 && byte !== needle[k]) k = piece.table[k - 1]!;
      if (byte === needle[k]) k++;
      if (k === needle.length) {
        const start = t - needle.length + 1 - piece.offset;
        k = piece.table[k - 1]!;
        if (start >= from && start <= lastStart) {
          const slot = start & mask;
          if (owners[slot] !== start) {
            owners[slot] = start;
            votes[slot] = 0;
          }
          if (++votes[slot]! === count) return start;
        }
      }
      states[p] = k;
    }
  }
  return -1;
}
