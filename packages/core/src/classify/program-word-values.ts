/*
 * The values a program word built of known variables takes: `c=r; ${c}m x`, `c=RM; ${c,,} x`,
 * `c=xm; ${c/x/r} x`, `g=f; f=rm; ${!g} x` all run rm. Each reference is read as every value the
 * line gives its variable, with bash's case, removal, substitution and substring operations
 * applied; a reference to a variable the line gives no value, or an operation not read here,
 * makes the word unread (null), as before.
 */

/** More values than this for one word is read as no value at all. */
const MAX_WORD_VALUES = 16;
const NAME = /^(?:[A-Za-z_][A-Za-z0-9_]*|[0-9]|[@*])/;

/** Longer values are no program's name: they are not read (and no pattern runs over them). */
const MAX_VALUE_LENGTH = 64;
/** More expansions than this in one word is read as no value at all. */
const MAX_WORD_PARTS = 8;

/**
 * A bash pattern (`*`, `?`, literal characters) as a regular expression; null for `[`, `\`, `$`,
 * or more than two `*` (each is a loop over the value).
 */
function patternRegex(pattern: string): string | null {
  if (/[[\\$`'"]/.test(pattern) || (pattern.match(/\*/g) ?? []).length > 2) return null;
  return pattern
    .split('')
    .map((char) =>
      char === '*' ? '.*' : char === '?' ? '.' : char.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'),
    )
    .join('');
}

/** `${v#p}`, `${v##p}`, `${v%p}`, `${v%%p}`: the value without the shortest or longest match. */
function removeAffix(value: string, operator: string, pattern: string): string | null {
  const regex = patternRegex(pattern);
  if (regex === null) return null;
  const whole = new RegExp(`^(?:${regex})$`, 's');
  const lengths = [...Array(value.length + 1).keys()];
  const order = operator.length === 2 ? lengths.reverse() : lengths;
  for (const length of order) {
    const prefix = operator[0] === '#';
    const cut = prefix ? value.slice(0, length) : value.slice(value.length - length);
    if (whole.test(cut))
      return prefix ? value.slice(length) : value.slice(0, value.length - length);
  }
  return value;
}

/** `${v/p/r}`, `${v//p/r}`, `${v/#p/r}`, `${v/%p/r}`. */
function substitute(value: string, body: string): string | null {
  const all = body.startsWith('/');
  const anchor = body[0] === '#' ? '^' : body[0] === '%' ? '$' : '';
  const rest = all || anchor !== '' ? body.slice(1) : body;
  const slash = rest.indexOf('/');
  const pattern = slash < 0 ? rest : rest.slice(0, slash);
  const replacement = slash < 0 ? '' : rest.slice(slash + 1);
  const regex = patternRegex(pattern);
  if (regex === null || /[\\$`&]/.test(replacement) || pattern === '') return null;
  const source = anchor === '^' ? `^(?:${regex})` : anchor === '$' ? `(?:${regex})$` : regex;
  return value.replace(new RegExp(source, all ? 'gs' : 's'), () => replacement);
}

/** The values of `operation` (what follows the name inside `${...}`) applied to `value`. */
function operate(value: string, operation: string): string[] | null {
  if (operation === '') return [value];
  if (value.length > MAX_VALUE_LENGTH) return null;
  const lower = value.toLowerCase();
  const upper = value.toUpperCase();
  // A case operation with a pattern changes only the characters it matches: some, all or none.
  if (/^(\^\^|,,)/.test(operation)) return [value, operation[0] === '^' ? upper : lower];
  if (/^[\^,]/.test(operation)) {
    const first = operation[0] === '^' ? upper : lower;
    return [value, first.slice(0, 1) + value.slice(1)];
  }
  if (operation === '@L') return [lower];
  if (operation === '@U') return [upper];
  if (operation === '@u') return [upper.slice(0, 1) + value.slice(1)];
  const affix = /^(##?|%%?)(.*)$/s.exec(operation);
  if (affix !== null) {
    const removed = removeAffix(value, affix[1]!, affix[2]!);
    return removed === null ? null : [removed];
  }
  if (operation.startsWith('/')) {
    const substituted = substitute(value, operation.slice(1));
    return substituted === null ? null : [substituted];
  }
  const slice = /^:\s*([0-9]+)(?::\s*([0-9]+))?$/.exec(operation);
  if (slice !== null) {
    const from = Number(slice[1]);
    return [value.slice(from, slice[2] === undefined ? undefined : from + Number(slice[2]))];
  }
  // `${v:-rm}`, `${v-rm}`, `${v:=rm}`, `${v=rm}`: the value, or the literal default.
  const fallback = /^:?[-=]([^$`{}'"\\]*)$/.exec(operation);
  if (fallback !== null) return [value, fallback[1]!];
  return null;
}

/** The values a variable holds: an array's `(a b)` and `([0]=a [1]=b)` are its elements joined. */
function valuesOf(name: string, values: ReadonlyMap<string, readonly string[]>): string[] {
  return (values.get(name) ?? []).map((value) => {
    const array = /^\((.*)\)$/s.exec(value);
    if (array === null) return value;
    return array[1]!
      .replace(/['"]/g, '')
      .split(/\s+/)
      .map((element) => element.replace(/^\[[^\]]*\]=/, ''))
      .join(' ');
  });
}

const SLICE = /^:\s*([0-9]+)(?::\s*([0-9]+))?$/;

/** The elements of a list's value (joined at blanks) a slice takes, counted from `first`. */
function sliceElements(value: string, slice: RegExpExecArray, first: number): string {
  const from = Math.max(0, Number(slice[1]) - first);
  const elements = value.split(/\s+/).filter((element) => element !== '');
  const end = slice[2] === undefined ? undefined : from + Number(slice[2]);
  return elements.slice(from, end).join(' ');
}

/** One `${...}` body's values: `!name`, `name[@]`, `name` and an operation after it. */
function braceValues(
  body: string,
  values: ReadonlyMap<string, readonly string[]>,
): string[] | null {
  const indirect = body.startsWith('!');
  const rest = indirect ? body.slice(1) : body;
  const name = NAME.exec(rest)?.[0];
  if (name === undefined) return null;
  const after = rest.slice(name.length).replace(/^\[(?:[@*]|[0-9]+)\]/, '');
  const direct = valuesOf(name, values);
  const named = indirect ? direct.flatMap((target) => valuesOf(target, values)) : direct;
  if (named.length === 0) return null;
  // `${@:1}` and `${a[@]:0:2}` slice the elements, not the characters (`$@` counts from $1).
  const listed = /^[@*]$/.test(name) || /^\[[@*]\]/.test(rest.slice(name.length));
  const slice = listed && !indirect ? SLICE.exec(after) : null;
  const out: string[] = [];
  for (const value of named) {
    if (slice !== null) {
      out.push(sliceElements(value, slice, /^[@*]$/.test(name) ? 1 : 0));
      continue;
    }
    const operated = operate(value, after);
    if (operated === null) return null;
    out.push(...operated);
  }
  return out;
}

/** Where the `}` closing the `${` at `from` is (a nested `${` counts), or -1. */
function closingBrace(text: string, from: number): number {
  let depth = 0;
  for (let index = from; index < text.length; index++) {
    if (text.startsWith('${', index)) depth++;
    else if (text[index] === '}' && --depth === 0) return index;
  }
  return -1;
}

/**
 * Every value `text` (a program word, quotes removed, expansions as written) may take given the
 * values the line assigns; null when a part of it cannot be read, or it names no variable.
 */
export function programWordValues(
  text: string,
  values: ReadonlyMap<string, readonly string[]>,
): string[] | null {
  let results = [''];
  let named = false;
  if (text.split('$').length - 1 > MAX_WORD_PARTS) return null;
  for (let at = 0; at < text.length; ) {
    let parts: string[] | null;
    if (text.startsWith('${', at)) {
      const end = closingBrace(text, at);
      if (end < 0) return null;
      parts = braceValues(text.slice(at + 2, end), values);
      at = end + 1;
      named = true;
    } else if (text[at] === '$') {
      const longest = NAME.exec(text.slice(at + 1))?.[0];
      if (longest === undefined) return null;
      // Quotes are gone: `$c'm'` reads as `$cm`, so a known shorter name is read too.
      let name = longest;
      while (name.length > 1 && !values.has(name)) name = name.slice(0, -1);
      if (!values.has(name)) name = longest;
      parts = valuesOf(name, values);
      at += 1 + name.length;
      named = true;
      if (parts.length === 0) return null;
    } else if (text[at] === '`') {
      return null;
    } else {
      const next = text.slice(at).search(/[$`]/);
      const end = next < 0 ? text.length : at + next;
      parts = [text.slice(at, end)];
      at = end;
    }
    if (parts === null) return null;
    const joined = results.flatMap((head) => parts!.map((part) => head + part));
    results = [...new Set(joined)];
    if (results.length > MAX_WORD_VALUES) return null;
  }
  return named ? results : null;
}
