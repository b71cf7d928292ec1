import { MAX_JSON_DEPTH, pointerFrom } from '@airlock/core';

/**
 * The kernel's guard on every request body, made before any validator: a body nesting arrays
 * and objects deeper than core's `MAX_JSON_DEPTH` (the body itself is level 1) is refused
 * `input_too_deep`, and a `__proto__` key at any depth is refused `invalid_input` with an
 * `unrecognized_keys` problem. A profile file is the body of its put, so the linter reports
 * both; what the guard finds first is what the kernel answers, and the linter lists every one.
 */
export const REQUEST_GUARD_CODES = ['input_too_deep', 'unrecognized_keys'] as const;

/** A code of the kernel's request guard. */
export type RequestGuardCode = (typeof REQUEST_GUARD_CODES)[number];

/** Keys no request may carry at any depth: they reach an object's prototype, not its data. */
const FORBIDDEN_KEYS = new Set(['__proto__']);

/** One problem of the guard, with the pointer of the culprit. */
export interface RequestGuardProblem {
  readonly code: RequestGuardCode;
  readonly pointer: string;
  readonly message: string;
}

/**
 * The guard's problems of a declaration as the kernel receives it: each value that sits
 * deeper than {@link MAX_JSON_DEPTH} (reported once, at its outermost level past the bound)
 * and each forbidden key. Walks without recursion, so no nesting overflows it; never throws.
 */
export function requestGuardProblems(declaration: unknown): RequestGuardProblem[] {
  // Each entry keeps its parent and key: a pointer is built only for a problem.
  interface Entry {
    readonly value: unknown;
    readonly depth: number;
    readonly parent: Entry | null;
    readonly key: string | number;
  }
  const pointerOf = (entry: Entry): string => {
    const path: (string | number)[] = [];
    for (let at: Entry | null = entry; at?.parent; at = at.parent) path.push(at.key);
    return pointerFrom(path.reverse());
  };
  const problems: RequestGuardProblem[] = [];
  const stack: Entry[] = [{ value: declaration, depth: 1, parent: null, key: '' }];
  for (let item = stack.pop(); item; item = stack.pop()) {
    const { value, depth } = item;
    if (value === null || typeof value !== 'object') continue;
    if (depth > MAX_JSON_DEPTH) {
      problems.push({
        code: 'input_too_deep',
        pointer: pointerOf(item),
        message: `this value nests arrays and objects ${depth} levels deep, counting the declaration as level 1; the kernel refuses a request deeper than ${MAX_JSON_DEPTH} levels. Flatten it`,
      });
      continue;
    }
    const keys: (string | number)[] = Array.isArray(value) ? [...value.keys()] : Object.keys(value);
    for (const key of keys) {
      const entry: Entry = {
        value: (value as Record<string | number, unknown>)[key],
        depth: depth + 1,
        parent: item,
        key,
      };
      if (typeof key === 'string' && FORBIDDEN_KEYS.has(key)) {
        problems.push({
          code: 'unrecognized_keys',
          pointer: pointerOf(entry),
          message: `the kernel refuses a "${key}" key at any depth, since it reaches an object's prototype rather than its data; rename it`,
        });
      }
      stack.push(entry);
    }
  }
  return problems;
}
