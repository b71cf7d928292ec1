import { MAX_JSON_DEPTH, pointerFrom } from '@airlock/core';
import { AirlockError } from '../errors.js';

/** The deepest nesting a request may carry (core's, shared with the SDK's executor). */
export { MAX_JSON_DEPTH };

/** Keys no request may carry at any depth: they reach an object's prototype, not its data. */
const FORBIDDEN_KEYS = new Set(['__proto__']);

/** The refusal of input nested past {@link MAX_JSON_DEPTH}. */
export function tooDeep(): AirlockError {
  return new AirlockError(
    'input_too_deep',
    `the input nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`,
  );
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
