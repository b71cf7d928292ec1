import type { Glob } from '../glob/byte-glob.js';
import { utf8Length } from '../glob/utf8.js';
import type { AnchoredLiteral } from './automaton-table.js';

/**
 * How a glob is decided once its literals are known to occur:
 * - `decisive`: their occurring is the match (an exact text, `P*`, `*S`, `*F*`, `*`);
 * - `ordered`: `*A*B*`, a match when the first A ends before the last B starts;
 * - `after-prefix`: `P*A*`, a match when the last A starts after P;
 * - `before-suffix`: `*A*S`, a match when the first A ends before S starts;
 * - `run`: any other shape, or one with `?`: the glob itself runs.
 */
export type MatchShape =
  | { readonly kind: 'decisive' }
  | { readonly kind: 'ordered'; readonly first: AnchoredLiteral; readonly second: AnchoredLiteral }
  | {
      readonly kind: 'after-prefix';
      readonly literal: AnchoredLiteral;
      /** The prefix's length in UTF-8 bytes. */
      readonly prefixBytes: number;
    }
  | {
      readonly kind: 'before-suffix';
      readonly literal: AnchoredLiteral;
      /** The suffix's length in UTF-8 bytes. */
      readonly suffixBytes: number;
    }
  | { readonly kind: 'run' };

/** What a glob needs to find in a text before it can match, and how that decides it. */
export interface RequiredLiterals {
  /** Literals that all occur in every text the glob matches (none for `*`, `??`, ...). */
  readonly literals: readonly AnchoredLiteral[];
  readonly shape: MatchShape;
}

/**
 * The literal runs of a glob (its segments cut at every `?`), each anchored
 * where the glob anchors it: the first run of the first segment at the start
 * of the text, the last run of the last segment at its end.
 */
export function requiredLiterals(glob: Glob): RequiredLiterals {
  const segments = glob.segments;
  const lastSegment = segments.length - 1;
  const literals: AnchoredLiteral[] = [];
  segments.forEach((segment, segmentIndex) => {
    const runs = segment.literals;
    runs.forEach((text, runIndex) => {
      const atStart = segmentIndex === 0 && runIndex === 0;
      const atEnd = segmentIndex === lastSegment && runIndex === runs.length - 1;
      // An empty run adds nothing, except the empty exact glob, which needs an empty text.
      if (text === '' && !(atStart && atEnd && !glob.hasStar)) return;
      literals.push({ text, atStart, atEnd });
    });
  });
  return { literals, shape: glob.hasQuestion ? { kind: 'run' } : shapeOf(glob) };
}

const floating = (text: string): AnchoredLiteral => ({ text, atStart: false, atEnd: false });

function shapeOf(glob: Glob): MatchShape {
  const texts = glob.segments.map((segment) => segment.text);
  if (!glob.hasStar) return { kind: 'decisive' };
  const first = texts[0]!;
  const last = texts[texts.length - 1]!;
  if (texts.length === 2)
    return first === '' || last === '' ? { kind: 'decisive' } : { kind: 'run' };
  if (texts.length === 3) {
    const middle = texts[1]!;
    if (first === '' && last === '') return { kind: 'decisive' };
    if (last === '')
      return { kind: 'after-prefix', literal: floating(middle), prefixBytes: utf8Length(first) };
    if (first === '')
      return { kind: 'before-suffix', literal: floating(middle), suffixBytes: utf8Length(last) };
    return { kind: 'run' };
  }
  if (texts.length === 4 && first === '' && last === '') {
    return { kind: 'ordered', first: floating(texts[1]!), second: floating(texts[2]!) };
  }
  return { kind: 'run' };
}
