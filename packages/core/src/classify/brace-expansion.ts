/**
 * Bash's brace expansion (`{a,b}`, `{1..3}`, `{a..e..2}`), done on a word
 * before it is classified: `find . -name {victim,-delete}` runs
 * `find . -name victim -delete`. Only braces and commas bash saw unquoted
 * count; the caller marks them.
 */

/** A word's text with the positions, ascending, of its unquoted `{`, `,` and `}` characters. */
export interface BraceWord {
  readonly text: string;
  readonly active: readonly number[];
}

/** Words one brace-expanded word may become before it is read as unknown instead. */
export const MAX_BRACE_WORDS = 64;
/** Unquoted braces and commas one word may hold before it is read as unknown (bounds the time). */
const MAX_MARKS = 256;

/** Where the brace group opened at `open` closes, with its top-level commas; null when it does not. */
function braceGroup(word: BraceWord, open: number): { close: number; commas: number[] } | null {
  let depth = 0;
  const commas: number[] = [];
  for (const at of word.active) {
    if (at < open) continue;
    const char = word.text[at];
    if (char === '{') depth++;
    else if (char === '}' && --depth === 0) return { close: at, commas };
    else if (char === ',' && depth === 1) commas.push(at);
  }
  return null;
}

const NUMBER = /^[-+]?[0-9]+$/;

/** The words of a sequence `{x..y}` or `{x..y..step}`, or null when `inner` is none. */
function sequence(inner: string, limit: number): string[] | null {
  const parts = inner.split('..');
  if (parts.length !== 2 && parts.length !== 3) return null;
  const [from, to, step = '1'] = parts as [string, string, string?];
  if (!NUMBER.test(step)) return null;
  const stride = Math.abs(Number.parseInt(step, 10)) || 1;
  if (NUMBER.test(from) && NUMBER.test(to)) {
    const start = Number.parseInt(from, 10);
    const end = Number.parseInt(to, 10);
    if (Math.abs(end - start) / stride >= limit) return [];
    const padded = /^[-+]?0[0-9]/.test(from) || /^[-+]?0[0-9]/.test(to);
    const width = padded ? Math.max(from.length, to.length) : 0;
    const out: string[] = [];
    const sign = end >= start ? 1 : -1;
    for (let value = start; sign * (end - value) >= 0; value += sign * stride) {
      const digits = String(Math.abs(value)).padStart(width - (value < 0 ? 1 : 0), '0');
      out.push(value < 0 ? `-${digits}` : digits);
    }
    return out;
  }
  if (from.length === 1 && to.length === 1 && /[A-Za-z]/.test(from + to)) {
    const start = from.charCodeAt(0);
    const end = to.charCodeAt(0);
    const sign = end >= start ? 1 : -1;
    const out: string[] = [];
    for (let code = start; sign * (end - code) >= 0; code += sign * stride) {
      out.push(String.fromCharCode(code));
    }
    return out;
  }
  return null;
}

const slice = (word: BraceWord, from: number, to: number): BraceWord => ({
  text: word.text.slice(from, to),
  active: word.active.filter((at) => at >= from && at < to).map((at) => at - from),
});

/**
 * The words `word` expands to, in bash's order; null when there are more
 * than `limit` (the caller reads the word as one it cannot know). A word
 * with no brace expansion is returned as it is.
 */
export function expandBraces(word: BraceWord, limit = MAX_BRACE_WORDS): string[] | null {
  if (word.active.length > MAX_MARKS) return null;
  for (const open of word.active) {
    if (word.text[open] !== '{') continue;
    // `${` is a parameter, never a brace expansion.
    if (open > 0 && word.text[open - 1] === '$') continue;
    const group = braceGroup(word, open);
    if (group === null) continue;
    const inner = word.text.slice(open + 1, group.close);
    let alternatives: BraceWord[];
    if (group.commas.length > 0) {
      const cuts = [open, ...group.commas, group.close];
      alternatives = cuts.slice(1).map((cut, index) => slice(word, cuts[index]! + 1, cut));
    } else {
      const steps = sequence(inner, limit);
      if (steps === null) continue;
      if (steps.length === 0) return null;
      alternatives = steps.map((text) => ({ text, active: [] }));
    }
    const prefix = word.text.slice(0, open);
    const rest = expandBraces(slice(word, group.close + 1, word.text.length), limit);
    if (rest === null) return null;
    const out: string[] = [];
    for (const alternative of alternatives) {
      const middles = expandBraces(alternative, limit);
      if (middles === null) return null;
      for (const middle of middles) {
        for (const tail of rest) {
          if (out.length >= limit) return null;
          out.push(prefix + middle + tail);
        }
      }
    }
    return out;
  }
  return [word.text];
}
