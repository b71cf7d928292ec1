import { compileGlob, type Glob } from '@airlock/core';

/**
 * Cheap facts about a glob, read from core's compiled form, that decide
 * most containment questions without building any automaton.
 */
export interface GlobShape {
  /** Core's compiled glob, or null when core refuses the pattern (it then matches nothing). */
  readonly glob: Glob | null;
  readonly source: string;
  /** The text before the first wildcard (the whole source when it has none). */
  readonly prefix: string;
  /** The text after the last wildcard (the whole source when it has none). */
  readonly suffix: string;
  /** True when the source has no `*` and no `?`. */
  readonly literal: boolean;
  /** Longest run of literal text between wildcards (a text it matches contains it). */
  readonly longestLiteral: string;
  /**
   * Texts the glob matches: every `*` read as nothing, then every `*` read as
   * one filler byte; each `?` is the filler byte. Empty when core refuses it.
   */
  readonly samples: readonly string[];
}

/** A one-byte character no real rule names, put where a wildcard stands. */
export const FILLER = '\u0001';

const shapes = new Map<string, GlobShape>();

/** The shape of a glob source, remembered (rule lists repeat the same globs). */
export function globShape(source: string): GlobShape {
  let shape = shapes.get(source);
  if (!shape) {
    if (shapes.size >= 20_000) shapes.clear();
    shape = computeShape(source);
    shapes.set(source, shape);
  }
  return shape;
}

function computeShape(source: string): GlobShape {
  const compiled = compileGlob(source);
  const first = source.search(/[*?]/);
  const last = Math.max(source.lastIndexOf('*'), source.lastIndexOf('?'));
  const literal = first < 0;
  let longestLiteral = '';
  for (const part of source.split(/[*?]/))
    if (part.length > longestLiteral.length) longestLiteral = part;
  const withQuestions = source.replaceAll('?', FILLER);
  const samples = compiled.ok
    ? [...new Set([withQuestions.replaceAll('*', ''), withQuestions.replaceAll('*', FILLER)])]
    : [];
  return {
    glob: compiled.ok ? compiled.value : null,
    source,
    prefix: literal ? source : source.slice(0, first),
    suffix: literal ? source : source.slice(last + 1),
    literal,
    longestLiteral,
    samples,
  };
}

/** True when core's glob matches the text (false for a glob core refuses). */
export function shapeMatches(shape: GlobShape, text: string): boolean {
  return shape.glob?.matches(text) === true;
}

/**
 * A cheap necessary condition for L(a) ⊆ L(b): b matches every sample of a.
 * False proves a is not inside b; true decides nothing.
 */
export function samplesInside(a: GlobShape, b: GlobShape): boolean {
  return a.samples.every((sample) => shapeMatches(b, sample));
}

/**
 * A cheap necessary condition for two globs to share a text: their literal
 * prefixes agree and their literal suffixes agree (as far as both go).
 * False means the languages are disjoint.
 */
export function mayIntersect(a: GlobShape, b: GlobShape): boolean {
  if (a.glob === null || b.glob === null) return false;
  if (a.literal) return shapeMatches(b, a.source);
  if (b.literal) return shapeMatches(a, b.source);
  return agree(a.prefix, b.prefix, false) && agree(a.suffix, b.suffix, true);
}

function agree(a: string, b: string, fromEnd: boolean): boolean {
  const length = Math.min(a.length, b.length);
  return fromEnd
    ? a.slice(a.length - length) === b.slice(b.length - length)
    : a.slice(0, length) === b.slice(0, length);
}
