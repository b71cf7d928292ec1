import { RE2JS } from 're2js';

/**
 * The regular-expression engine of tool input schemas: RE2JS, which matches
 * in time linear in the text, so no `pattern` a declaration carries can stall
 * the kernel (a backtracking `RegExp` on `^(a+)+$` takes seconds). It refuses
 * what needs backtracking (backreferences, lookaround), and a declaration
 * using those is refused instead.
 */
export interface LinearRegExp {
  test(text: string): boolean;
  toString(): string;
}

/**
 * Compiles a schema pattern with the linear engine. JSON Schema patterns are
 * unanchored, as `RegExp.prototype.test`. Throws when the engine cannot
 * compile it (the message names the construct).
 */
export function linearRegExp(pattern: string, _flags?: string): LinearRegExp {
  const compiled = RE2JS.compile(pattern);
  return {
    // Linear in the text, times the pattern's size: a text past the bound does not match.
    test: (text: string) => text.length <= PATTERN_TEXT_MAX && compiled.test(text),
    toString: () => pattern,
  };
}

/** The longest string a schema `pattern` is tried on; a longer one does not match it. */
export const PATTERN_TEXT_MAX = 65_536;
/** The most a pattern's counted repetitions (`{n}`, `{n,m}`) may add up to. */
export const PATTERN_REPEATS_MAX = 256;
/** The longest pattern a schema may hold. */
export const PATTERN_LENGTH_MAX = 1024;

/**
 * Why a pattern would make matching costly, or null: RE2JS matches in time
 * linear in the text but proportional to the compiled pattern, which counted
 * repetitions multiply (`[a-z]{1000}` ten times over took seconds on 100 KB).
 */
export function costlyPatternProblem(pattern: string): string | null {
  if (pattern.length > PATTERN_LENGTH_MAX) {
    return `a pattern is at most ${PATTERN_LENGTH_MAX} characters, not ${pattern.length}`;
  }
  let repeats = 0;
  for (const [, low, high] of pattern.matchAll(/\{(\d+)(?:,(\d*))?\}/g)) {
    repeats += Math.max(Number(low), Number(high || 0));
  }
  return repeats > PATTERN_REPEATS_MAX
    ? `the pattern's counted repetitions add up to ${repeats}, over ${PATTERN_REPEATS_MAX}: matching it would cost the kernel seconds per call`
    : null;
}
// ajv embeds this text only in standalone code, which the kernel never generates.
linearRegExp.code = 'linearRegExp';

/** Why the linear engine cannot compile a pattern, or null when it can. */
export function linearRegExpProblem(pattern: string): string | null {
  try {
    RE2JS.compile(pattern);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}
