import { EVERY_VARIABLE } from '../classify/line-variables.js';

/*
 * A shell word with an expansion, read as the paths it may become: a variable the line gives
 * values (`F=secrets/key; cat $F`, `for f in src/*.ts; do cat $f; done`) is read as each of
 * them; any other expansion may name any path (`cat $(cmd)/k`, `${F#x}`, a variable from the
 * environment), so the word is unknown.
 */

/** Expansions that give no path: arithmetic, and the status, count, pid and flags parameters. */
const PATHLESS_EXPANSIONS = /\$\(\([^()]*\)\)|\$[?#$!-]/g;

/** Variables of the environment whose values name no file of the project. */
const PATHLESS_VARIABLES = new Set([
  ...['PATH', 'USER', 'LOGNAME', 'SHELL', 'TERM', 'LANG', 'HOSTNAME', 'RANDOM', 'LINENO'],
  ...['SECONDS', 'UID', 'EUID', 'PPID', 'BASHPID', 'OSTYPE', 'BASH_VERSION', 'CI', 'NODE_ENV'],
]);

/**
 * What a variable of {@link PATHLESS_VARIABLES} is spelled as: some name without a `/` (`root`
 * of `$USER`), never nothing, since `$USER/.env` names `root/.env`, a `.env` of the project.
 */
const PATHLESS_VALUE = 'environment-value';

/** `$NAME` or `${NAME}`, nothing more (`${F#x}` is no plain reference). */
const PLAIN_REFERENCE = /\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))/g;

/** How many spellings one word may take before it is read as unknown. */
const MAX_SPELLINGS = 16;

/**
 * Whether a word with an expansion may name any path: a command's output or a value the
 * line does not give may hold `/` and `..`, so the words around it say nothing of where it leads.
 */
export function mayNameAnything(word: string): boolean {
  return /[$`]/.test(word.replace(PATHLESS_EXPANSIONS, ''));
}

/**
 * The characters besides blanks an `IFS` the line sets splits expanded values at (`IFS=x;
 * v=axsecrets/key; cat $v` reads `secrets/key`); null when it sets one it does not say.
 */
function separators(
  variables: ReadonlyMap<string, readonly (string | null)[]>,
): Set<string> | null {
  const found = new Set<string>();
  for (const value of variables.get('IFS') ?? []) {
    if (value === null) return null;
    for (const char of value) if (!' \t\n'.includes(char)) found.add(char);
  }
  return found;
}

/** The spellings a word takes once its plain references are replaced, or null when unknown. */
function spellings(
  word: string,
  variables: ReadonlyMap<string, readonly (string | null)[]>,
): string[] | null {
  const split = separators(variables);
  if (variables.has(EVERY_VARIABLE) || split === null) return null;
  let results = [''];
  let last = 0;
  for (const match of word.matchAll(PLAIN_REFERENCE)) {
    const name = (match[1] ?? match[2])!;
    const values = variables.get(name) ?? (PATHLESS_VARIABLES.has(name) ? [PATHLESS_VALUE] : null);
    if (values === null || values.includes(null)) return null;
    // A value the IFS splits becomes other words than it spells.
    if (values.some((value) => [...(value ?? '')].some((char) => split.has(char)))) return null;
    const literal = word.slice(last, match.index);
    results = results.flatMap((start) => values.map((value) => `${start}${literal}${value}`));
    if (results.length > MAX_SPELLINGS) return null;
    last = match.index + match[0].length;
  }
  const rest = word.slice(last);
  results = results.map((start) => `${start}${rest}`);
  return results.some(mayNameAnything) ? null : results;
}

/**
 * The words as the paths they may become: each word `expands` says holds an expansion is
 * replaced by its spellings; null when one may name any path.
 */
export function expandedWords(
  words: readonly string[],
  expands: (word: string) => boolean,
  variables: ReadonlyMap<string, readonly (string | null)[]>,
): string[] | null {
  const out: string[] = [];
  for (const word of words) {
    if (!expands(word)) {
      out.push(word);
      continue;
    }
    const spelled = spellings(word, variables);
    if (spelled === null) return null;
    out.push(...spelled);
  }
  return out;
}
