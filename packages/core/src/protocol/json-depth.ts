/**
 * The deepest nesting of arrays and objects a request body may carry, the
 * body object itself being level 1: the kernel refuses deeper input at the
 * door (`input_too_deep`), and an executor keeps a result that would be
 * refused from reading as committed (see the SDK's `onRan`).
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether JSON text nests arrays and objects deeper than `limit` (its
 * outermost value is level 1), read without parsing: brackets inside strings
 * do not count. Strings, most of a body's text (a tool's output, a file), are
 * skipped with `indexOf` rather than read a character at a time, so this
 * stays linear and cheap next to the serialization that made the text.
 */
export function jsonTextNestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      i = jsonStringEnd(text, i);
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return false;
}

/**
 * Where the string opened at `open` ends: its closing quote, the first one
 * not escaped (an even number of backslashes before it), or the text's end.
 * Each backslash is counted at most once, so this stays linear.
 */
export function jsonStringEnd(text: string, open: number): number {
  let from = open + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    if (quote === -1) return text.length;
    let backslashes = 0;
    while (quote - backslashes - 1 >= from && text.charCodeAt(quote - backslashes - 1) === 0x5c) {
      backslashes++;
    }
    if (backslashes % 2 === 0) return quote;
    from = quote + 1;
  }
}
