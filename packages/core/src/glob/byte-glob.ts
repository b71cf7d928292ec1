import { invalid, type Validated, valid } from '../issues/problem.js';
import { isWellFormed, utf8Bytes } from './utf8.js';

const STAR = 0x2a;
const QUESTION = 0x3f;

/**
 * A compiled anchored glob over UTF-8 bytes: `*` is any run of bytes
 * (newlines included, possibly empty), `?` exactly one byte, every other
 * byte literal.
 */
export interface Glob {
  /** The pattern as it was declared. */
  readonly source: string;
  /** True when the whole text matches the pattern. Never throws. */
  matches(text: string): boolean;
  /** The same test over raw bytes. */
  matchesBytes(bytes: Uint8Array): boolean;
}

/** A run of pattern bytes between two stars. */
interface Segment {
  readonly bytes: Uint8Array;
  readonly text: string;
  readonly hasQuestion: boolean;
}

const nativeWellFormed = (String.prototype as { isWellFormed?: () => boolean }).isWellFormed;

function textIsWellFormed(text: string): boolean {
  return nativeWellFormed ? nativeWellFormed.call(text) : isWellFormed(text);
}

/**
 * Matches by splitting the pattern at its stars: the first segment must sit
 * at the start, the last at the end, and each middle segment at its leftmost
 * place after the previous one. Leftmost placement is always safe, so the
 * worst case is O(text x pattern) and nothing backtracks.
 */
class SegmentGlob implements Glob {
  private readonly segments: readonly Segment[];
  private readonly hasStar: boolean;
  private readonly hasQuestion: boolean;
  private readonly minBytes: number;
  private readonly minUnits: number;

  constructor(readonly source: string) {
    const parts = source.split('*');
    this.hasStar = parts.length > 1;
    const kept = parts.filter(
      (part, index) => part !== '' || index === 0 || index === parts.length - 1,
    );
    this.segments = kept.map((text) => ({
      text,
      bytes: utf8Bytes(text),
      hasQuestion: text.includes('?'),
    }));
    this.hasQuestion = this.segments.some((segment) => segment.hasQuestion);
    this.minBytes = this.segments.reduce((sum, segment) => sum + segment.bytes.length, 0);
    this.minUnits = this.segments.reduce((sum, segment) => sum + segment.text.length, 0);
  }

  matches(text: string): boolean {
    if (this.hasQuestion || !textIsWellFormed(text)) return this.matchesBytes(utf8Bytes(text));
    return this.matchesUnits(text);
  }

  /** Without `?`, matching UTF-16 units of well-formed text equals matching its UTF-8 bytes. */
  private matchesUnits(text: string): boolean {
    const segments = this.segments;
    const first = segments[0]!.text;
    if (!this.hasStar) return text === first;
    if (text.length < this.minUnits) return false;
    const last = segments[segments.length - 1]!.text;
    if (!text.startsWith(first) || !text.endsWith(last)) return false;
    let position = first.length;
    const end = text.length - last.length;
    for (let index = 1; index < segments.length - 1; index++) {
      const middle = segments[index]!.text;
      const found = text.indexOf(middle, position);
      if (found < 0 || found + middle.length > end) return false;
      position = found + middle.length;
    }
    return true;
  }

  matchesBytes(bytes: Uint8Array): boolean {
    const segments = this.segments;
    const first = segments[0]!;
    if (!this.hasStar) return bytes.length === first.bytes.length && segmentAt(first, bytes, 0);
    if (bytes.length < this.minBytes) return false;
    const last = segments[segments.length - 1]!;
    const end = bytes.length - last.bytes.length;
    if (!segmentAt(first, bytes, 0) || !segmentAt(last, bytes, end)) return false;
    let position = first.bytes.length;
    for (let index = 1; index < segments.length - 1; index++) {
      const middle = segments[index]!;
      const found = findSegment(middle, bytes, position, end);
      if (found < 0) return false;
      position = found + middle.bytes.length;
    }
    return true;
  }
}

function segmentAt(segment: Segment, bytes: Uint8Array, offset: number): boolean {
  const pattern = segment.bytes;
  for (let index = 0; index < pattern.length; index++) {
    const expected = pattern[index]!;
    if (expected !== QUESTION && expected !== bytes[offset + index]) return false;
  }
  return true;
}

/** Leftmost offset in [from, end - length] where the segment fits, or -1. */
function findSegment(segment: Segment, bytes: Uint8Array, from: number, end: number): number {
  const last = end - segment.bytes.length;
  for (let offset = from; offset <= last; offset++) {
    if (segmentAt(segment, bytes, offset)) return offset;
  }
  return -1;
}

/**
 * Compiles a glob once for reuse. The only way a glob fails to compile is a
 * text with no UTF-8 form (a lone surrogate); the problem's pointer is ''.
 */
export function compileGlob(pattern: string): Validated<Glob> {
  if (typeof pattern !== 'string') {
    return invalid([{ code: 'glob_invalid', pointer: '', message: 'a glob must be a string' }]);
  }
  if (!textIsWellFormed(pattern)) {
    return invalid([
      {
        code: 'glob_invalid',
        pointer: '',
        message: 'the glob contains a lone UTF-16 surrogate, so it has no UTF-8 form to match',
      },
    ]);
  }
  return valid(new SegmentGlob(pattern));
}

/** One-shot convenience: compiles the pattern and matches the text (false when it does not compile). */
export function matchGlob(pattern: string, text: string): boolean {
  const compiled = compileGlob(pattern);
  return compiled.ok && compiled.value.matches(text);
}

/** True when the pattern has no `*` or `?`, so it matches exactly one text. */
export function isLiteralGlob(pattern: string): boolean {
  for (let index = 0; index < pattern.length; index++) {
    const unit = pattern.charCodeAt(index);
    if (unit === STAR || unit === QUESTION) return false;
  }
  return true;
}
