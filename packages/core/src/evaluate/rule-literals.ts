import type { Glob } from '../glob/byte-glob.js';
import type { AnchoredLiteral } from './literal-automaton.js';

/** What a glob needs to find in a text before it can match. */
export interface RequiredLiterals {
  /** Literals that all occur in every text the glob matches (none for `*`, `??`, ...). */
  readonly literals: readonly AnchoredLiteral[];
  /**
   * True when the literals occurring is also enough for a match, so the glob
   * need not run: an exact text, `P*`, `*S`, `*F*` or `*`, none holding `?`.
   */
  readonly decisive: boolean;
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
  return { literals, decisive: !glob.hasQuestion && isDecisiveShape(glob) };
}

function isDecisiveShape(glob: Glob): boolean {
  const segments = glob.segments;
  if (!glob.hasStar) return true;
  const first = segments[0]!.text;
  const last = segments[segments.length - 1]!.text;
  if (segments.length === 2) return first === '' || last === '';
  return segments.length === 3 && first === '' && last === '';
}
