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
    test: (text: string) => compiled.test(text),
    toString: () => pattern,
  };
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
