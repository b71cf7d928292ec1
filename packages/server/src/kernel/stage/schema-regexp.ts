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
// A pattern's length and counted repetitions are bounded when it is declared, by core's
// costlyPatternProblem (the rules linter checks the same bounds).
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
