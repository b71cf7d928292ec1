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
 * compile it (the message names the construct); its `test` throws on a text
 * past {@link PATTERN_TEXT_MAX}.
 */
export function linearRegExp(pattern: string, _flags?: string): LinearRegExp {
  const compiled = RE2JS.compile(pattern);
  return {
    test: (text: string) => {
      // Linear in the text, times the pattern's size, so a longer text is not tried. Answering
      // "no match" would let it through a `not`, an `anyOf` branch or a `patternProperties`
      // key the schema guards with the pattern: the check stops, and the call is refused.
      if (text.length > PATTERN_TEXT_MAX) throw new PatternTextTooLong(text.length);
      return compiled.test(text);
    },
    toString: () => pattern,
  };
}

/** The longest string (or property name) a schema `pattern` is tried on. */
export const PATTERN_TEXT_MAX = 65_536;

/** Thrown by a pattern's `test` on a text past {@link PATTERN_TEXT_MAX}; its message is for the model. */
class PatternTextTooLong extends Error {
  constructor(length: number) {
    super(
      `a string of ${length} characters meets a pattern of the schema, which is tried on at most ${PATTERN_TEXT_MAX}; send a shorter string`,
    );
    this.name = 'PatternTextTooLong';
  }
}
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
