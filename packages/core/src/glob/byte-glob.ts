import { invalid, type Validated, valid } from '../issues/problem.js';
import {
  type GlobSegment,
  SegmentMatcher,
  segmentSearchIsBounded,
  WILDCARD_SEARCH_MAX_PIECES,
  WILDCARD_SEARCH_MAX_WORDS,
} from './glob-segment.js';
import { PreparedText } from './prepared-text.js';
import { textIsWellFormed } from './well-formed.js';

const STAR = 0x2a;
const QUESTION = 0x3f;

/**
 * A compiled anchored glob over UTF-8 bytes: `*` is any run of bytes
 * (newlines included, possibly empty), `?` exactly one byte, every other
 * byte literal.
 *
 * Its structure is public and stable, for tools that reason about globs
 * (a linter's inclusion analysis): the pattern split at its stars into
 * `segments`; without a star there is one segment that must equal the whole
 * text; with stars the first segment is anchored at the start, the last at
 * the end (either may be empty) and each middle one (never empty) floats.
 */
export interface Glob {
  /** The pattern as it was declared. */
  readonly source: string;
  /** The pattern split at its stars; empty middle runs (from `**`) are dropped. */
  readonly segments: readonly GlobSegment[];
  /** True when the pattern has at least one `*`. */
  readonly hasStar: boolean;
  /** True when the pattern has at least one `?`. */
  readonly hasQuestion: boolean;
  /** The fewest UTF-8 bytes a matching text has: the segments' bytes summed. */
  readonly minBytes: number;
  /** True when the whole text matches the pattern. Never throws. */
  matches(text: string): boolean;
  /** The same test over raw bytes. */
  matchesBytes(bytes: Uint8Array): boolean;
  /** The same test over a text prepared once for many globs (see `PreparedText`). */
  matchesPrepared(text: PreparedText): boolean;
}

/**
 * Matches by splitting the pattern at its stars: the first segment must sit
 * at the start, the last at the end, and each middle segment at its leftmost
 * place after the previous one. Leftmost placement is always safe, so nothing
 * backtracks; each segment search is linear (KMP, or bit-parallel Shift-And
 * for a segment with `?`), so the whole match reads the text about once.
 */
class SegmentGlob implements Glob {
  readonly segments: readonly SegmentMatcher[];
  readonly hasStar: boolean;
  readonly hasQuestion: boolean;
  readonly minBytes: number;
  readonly #minUnits: number;

  constructor(readonly source: string) {
    const parts = source.split('*');
    this.hasStar = parts.length > 1;
    const kept = parts.filter(
      (part, index) => part !== '' || index === 0 || index === parts.length - 1,
    );
    this.segments = kept.map((text) => new SegmentMatcher(text));
    this.hasQuestion = this.segments.some((segment) => segment.hasQuestion);
    this.minBytes = this.segments.reduce((sum, segment) => sum + segment.bytes.length, 0);
    this.#minUnits = this.segments.reduce((sum, segment) => sum + segment.text.length, 0);
  }

  matches(text: string): boolean {
    if (!this.hasQuestion && textIsWellFormed(text)) return this.#matchesUnits(text);
    return this.matchesPrepared(new PreparedText(text));
  }

  matchesPrepared(text: PreparedText): boolean {
    return this.hasQuestion ? this.matchesBytes(text.bytes) : this.#matchesUnits(text.units);
  }

  /** Without `?`, matching UTF-16 units of well-formed text equals matching its UTF-8 bytes. */
  #matchesUnits(text: string): boolean {
    const segments = this.segments;
    const first = segments[0]!;
    if (!this.hasStar) return text === first.text;
    if (text.length < this.#minUnits) return false;
    const last = segments[segments.length - 1]!;
    const end = text.length - last.text.length;
    if (!first.unitsAt(text, 0) || !last.unitsAt(text, end)) return false;
    let from = first.text.length;
    for (let index = 1; index < segments.length - 1; index++) {
      const middle = segments[index]!;
      const found = middle.findUnits(text, { from, end });
      if (found < 0) return false;
      from = found + middle.text.length;
    }
    return true;
  }

  matchesBytes(bytes: Uint8Array): boolean {
    const segments = this.segments;
    const first = segments[0]!;
    if (!this.hasStar) return bytes.length === first.bytes.length && first.bytesAt(bytes, 0);
    if (bytes.length < this.minBytes) return false;
    const last = segments[segments.length - 1]!;
    const end = bytes.length - last.bytes.length;
    if (!first.bytesAt(bytes, 0) || !last.bytesAt(bytes, end)) return false;
    let from = first.bytes.length;
    for (let index = 1; index < segments.length - 1; index++) {
      const middle = segments[index]!;
      const found = middle.findBytes(bytes, { from, end });
      if (found < 0) return false;
      from = found + middle.bytes.length;
    }
    return true;
  }
}

/** How many compiled globs are kept for reuse before the cache starts over. */
const GLOB_CACHE_LIMIT = 20_000;

/**
 * Compiled globs by source. A compiled glob is immutable (its search tables
 * are built once, on first need), and a kernel compiles the same rule lists
 * again for every run that freezes them, so each pattern is compiled once.
 */
const compiled = new Map<string, SegmentGlob>();

/**
 * Compiles a glob once for reuse. The only way a glob fails to compile is a
 * text with no UTF-8 form (a lone surrogate); the problem's pointer is ''.
 */
export function compileGlob(pattern: string): Validated<Glob> {
  if (typeof pattern === 'string') {
    const known = compiled.get(pattern);
    if (known) return valid(known);
  }
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
  const glob = new SegmentGlob(pattern);
  if (!glob.segments.every((segment) => segmentSearchIsBounded(segment.bytes))) {
    return invalid([
      {
        code: 'glob_too_complex',
        pointer: '',
        message: `a part of the glob between two stars that holds a ? may be at most ${WILDCARD_SEARCH_MAX_WORDS * 32} bytes long, or have at most ${WILDCARD_SEARCH_MAX_PIECES} literal runs between its ?s, so that matching stays fast on any text`,
      },
    ]);
  }
  if (compiled.size >= GLOB_CACHE_LIMIT) compiled.clear();
  compiled.set(pattern, glob);
  return valid(glob);
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
