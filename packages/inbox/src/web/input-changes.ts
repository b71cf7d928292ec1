/**
 * What an edit changed in a call's input, field by field, in words. Pure:
 * the run story reads a `task.edited` event with it, unit-tested in Node.
 */

/** One changed field: its dotted path, and its value before and after (absent: not there). */
export interface InputChange {
  path: string;
  before?: unknown;
  after?: unknown;
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** Structural equality of two JSON values (key order of objects ignored). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return (
      Array.isArray(a) &&
      Array.isArray(b) &&
      a.length === b.length &&
      a.every((item, i) => sameJson(item, b[i]))
    );
  }
  if (!isObject(a) || !isObject(b)) return false;
  const keys = Object.keys(a);
  return (
    keys.length === Object.keys(b).length &&
    keys.every((key) => key in b && sameJson(a[key], b[key]))
  );
}

/**
 * The fields an edit changed: objects are walked key by key (the original's
 * keys first), anything else is compared whole.
 */
export function inputChanges(before: unknown, after: unknown, path = ''): InputChange[] {
  if (isObject(before) && isObject(after)) {
    const keys = [...Object.keys(before), ...Object.keys(after).filter((key) => !(key in before))];
    return keys.flatMap((key): InputChange[] => {
      const at = path ? `${path}.${key}` : key;
      if (!(key in after)) return [{ path: at, before: before[key] }];
      if (!(key in before)) return [{ path: at, after: after[key] }];
      return inputChanges(before[key], after[key], at);
    });
  }
  return sameJson(before, after) ? [] : [{ path: path || 'input', before, after }];
}

/** A value in a line of text: JSON, cut to `max` characters. */
function shortJson(value: unknown, max = 60): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** The changes in words: `command "rm -rf ./build" → "rm -rf ./build/cache"; cwd added: "/tmp"`. */
export function changeWords(changes: InputChange[]): string {
  if (changes.length === 0) return 'no field changed';
  return changes
    .map((change) => {
      if (!('after' in change)) return `${change.path} removed (was ${shortJson(change.before)})`;
      if (!('before' in change)) return `${change.path} added: ${shortJson(change.after)}`;
      return `${change.path} ${shortJson(change.before)} → ${shortJson(change.after)}`;
    })
    .join('; ');
}
