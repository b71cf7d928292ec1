import { pointerFrom } from '@airlock/core';
import { AirlockError } from '../errors.js';

/**
 * The deepest nesting of arrays and objects a request may carry, counted
 * from the body itself (the body object is level 1). Deeper input is refused
 * at the door, before anything parses or stores it, because the kernel
 * serializes every JSON field and recursion that deep overflows the stack.
 */
export const MAX_JSON_DEPTH = 64;

/** Keys no request may carry at any depth: they reach an object's prototype, not its data. */
const FORBIDDEN_KEYS = new Set(['__proto__']);

function tooDeep(): AirlockError {
  return new AirlockError(
    'input_too_deep',
    `the input nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`,
  );
}

/**
 * Checks the nesting depth of JSON text without parsing it (brackets inside
 * strings do not count), so a hostile body is refused before `JSON.parse`.
 * Strings, most of a body's text (a tool's output, a file), are skipped with
 * `indexOf` rather than read a character at a time.
 * @throws AirlockError input_too_deep past {@link MAX_JSON_DEPTH}.
 */
export function checkJsonTextDepth(text: string): void {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      i = closingQuote(text, i);
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > MAX_JSON_DEPTH) throw tooDeep();
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
}

/**
 * Where the string opened at `open` ends: its closing quote, the first one
 * not escaped (an even number of backslashes before it), or the text's end.
 * Each backslash is counted at most once, so this stays linear.
 */
function closingQuote(text: string, open: number): number {
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

/**
 * Walks parsed input (iteratively: no recursion to overflow) and refuses it
 * when it nests too deep or carries a `__proto__` key anywhere, which the
 * strict schemas would otherwise miss or silently drop.
 * @throws AirlockError input_too_deep, or invalid_input naming the key's pointer.
 */
export function checkParsedInput(value: unknown): void {
  // Each entry keeps its parent and key: a pointer is built only for a refused key.
  interface Entry {
    value: unknown;
    depth: number;
    parent: Entry | null;
    key: string;
  }
  const pathOf = (entry: Entry): string[] => {
    const path: string[] = [];
    for (let at: Entry | null = entry; at?.parent; at = at.parent) path.push(at.key);
    return path.reverse();
  };
  const stack: Entry[] = [{ value, depth: 1, parent: null, key: '' }];
  for (let item = stack.pop(); item; item = stack.pop()) {
    const current = item.value;
    if (current === null || typeof current !== 'object') continue;
    if (item.depth > MAX_JSON_DEPTH) throw tooDeep();
    if (Array.isArray(current)) {
      for (let index = 0; index < current.length; index++) {
        stack.push({
          value: current[index],
          depth: item.depth + 1,
          parent: item,
          key: String(index),
        });
      }
      continue;
    }
    for (const key of Object.keys(current)) {
      const entry = {
        value: (current as Record<string, unknown>)[key],
        depth: item.depth + 1,
        parent: item,
        key,
      };
      if (FORBIDDEN_KEYS.has(key)) {
        const pointer = pointerFrom(pathOf(entry));
        throw new AirlockError('invalid_input', `${pointer}: unrecognized key "${key}"`, [
          { code: 'unrecognized_keys', pointer, message: `unrecognized key "${key}"` },
        ]);
      }
      stack.push(entry);
    }
  }
}
