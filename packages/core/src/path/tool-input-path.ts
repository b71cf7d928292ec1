import { readField } from './field-read.js';

/**
 * Splits a dotted path (`command`, `edits.0.path`) into its segments, or
 * returns null when a segment is empty (`a..b`, `.a`, `a.`, ``).
 */
export function parsePath(path: string): string[] | null {
  const segments = path.split('.');
  return segments.every((segment) => segment !== '') ? segments : null;
}

const DECIMAL_INDEX = /^(0|[1-9][0-9]*)$/;

/**
 * Walks the tool input along the segments: an object by key, an array by a
 * decimal index; anything else walks nowhere (undefined).
 */
export function walkPath(input: unknown, segments: readonly string[]): unknown {
  let current: unknown = input;
  for (const segment of segments) {
    if (Array.isArray(current)) {
      if (!DECIMAL_INDEX.test(segment)) return undefined;
      const index = Number(segment);
      if (index >= current.length) return undefined;
      current = current[index];
    } else if (current !== null && typeof current === 'object') {
      if (!Object.hasOwn(current, segment)) return undefined;
      current = (current as Record<string, unknown>)[segment];
    } else {
      return undefined;
    }
  }
  return current;
}

function isScalar(value: unknown): value is string | number | boolean | null {
  return (
    value === null ||
    typeof value === 'string' ||
    typeof value === 'boolean' ||
    (typeof value === 'number' && Number.isFinite(value))
  );
}

/**
 * The text a rule's glob reads from a value: a string as is; an array whose
 * elements are all scalars joined by one space (strings raw, others as JSON);
 * anything else (absent, object, nested array, a lone number or boolean) has
 * no text and yields undefined.
 */
export function textOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (!Array.isArray(value)) return undefined;
  let allStrings = true;
  for (let i = 0; i < value.length; i++) {
    if (typeof value[i] !== 'string') {
      allStrings = false;
      break;
    }
  }
  // The usual argv: every element a string, joined without a copy of the array.
  if (allStrings) return value.join(' ');
  const parts: string[] = [];
  for (const element of value) {
    if (!isScalar(element)) return undefined;
    parts.push(typeof element === 'string' ? element : JSON.stringify(element));
  }
  return parts.join(' ');
}

/** The text at a path of the tool input, or undefined when there is none. */
export function textAtPath(input: unknown, segments: readonly string[]): string | undefined {
  return textOf(walkPath(input, segments));
}

/**
 * A text as `textOf` gives it, or an array of strings that stands for its
 * elements joined by one space (the usual argv), so that a caller that can
 * read the elements in turn skips building the joined string.
 */
export type TextSource = string | readonly string[];

/** The joined text a source stands for. */
export function sourceText(source: TextSource): string {
  return typeof source === 'string' ? source : source.join(' ');
}

/**
 * The text at a key of an object that is known not to be an array, from its
 * own property only, with an array of strings left unjoined; `fieldCode` is
 * `fieldCodeOf(key)`, worked out once by the caller.
 */
export function sourceAtOwnKey(
  input: Record<string, unknown>,
  key: string,
  fieldCode: number,
): TextSource | undefined {
  const value = readField(input, fieldCode, key);
  // Only a string or an array has a text; anything else is answered before the own-property check.
  if (typeof value === 'string') return Object.hasOwn(input, key) ? value : undefined;
  if (!Array.isArray(value) || !Object.hasOwn(input, key)) return undefined;
  for (let i = 0; i < value.length; i++) {
    if (typeof value[i] !== 'string') return textOf(value);
  }
  return value as string[];
}
