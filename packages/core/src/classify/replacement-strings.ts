/**
 * Replacement strings: `xargs -I{} CMD {}` and `parallel CMD {} ::: args`
 * put each argument they read in place of a string in the command. The
 * classifier does not know the argument, so a word holding the string is
 * read as an expansion: one unknown argument, and in a `bash -c` text an
 * unknown piece of code.
 */
import type { ShellWord } from './lexed-line.js';
import { wrapperGrammar } from './wrapper-grammars.js';

const XARGS_VALUED = new Set(wrapperGrammar('xargs')?.valued ?? []);
/** xargs's short options whose value is optional and attached only (`-i{}`, `-e`, `-l`). */
const XARGS_OPTIONAL = new Set(['i', 'e', 'l']);
/** xargs's long options taking their value as the next word. */
const XARGS_VALUED_LONG = ['arg-file', 'delimiter', 'max-args', 'max-procs', 'max-chars'];

/** The full name of xargs's long option `name` abbreviates, when it names `option`. */
function abbreviates(name: string, option: string): boolean {
  return name !== '' && option.startsWith(name);
}

/**
 * The replacement string of xargs's options in `words[from..to)`: `-I R`,
 * `-IR`, `-i[R]`, `--replace[=R]` (`{}` without a value), the last given;
 * null without one (or an empty one, which replaces nothing).
 */
export function xargsReplacement(words: readonly ShellWord[], from: number, to: number) {
  let replacement: string | null = null;
  for (let index = from; index < to; index++) {
    const text = words[index]!.text;
    if (text === '--' || !text.startsWith('-')) break;
    if (text.startsWith('--')) {
      const equals = text.indexOf('=');
      const name = text.slice(2, equals < 0 ? undefined : equals);
      // `replace` is the only long option of xargs starting with `r`: any prefix names it.
      if (abbreviates(name, 'replace')) replacement = equals < 0 ? '{}' : text.slice(equals + 1);
      else if (equals < 0 && XARGS_VALUED_LONG.some((option) => abbreviates(name, option))) index++;
      continue;
    }
    for (let at = 1; at < text.length; at++) {
      const letter = text[at]!;
      const attached = text.slice(at + 1);
      if (letter === 'i') replacement = attached === '' ? '{}' : attached;
      else if (letter === 'I')
        replacement = attached === '' ? (words[index + 1]?.text ?? '') : attached;
      if (XARGS_VALUED.has(letter) && attached === '') index++;
      if (XARGS_VALUED.has(letter) || XARGS_OPTIONAL.has(letter)) break;
    }
  }
  return replacement === '' ? null : replacement;
}

/**
 * The words from `from` on with each word holding `replacement` read as an
 * expansion (dynamic): xargs puts one argument read from its input there.
 */
export function withReplacement(
  words: readonly ShellWord[],
  from: number,
  replacement: string,
): ShellWord[] {
  return words
    .slice(from)
    .map((word) => (word.text.includes(replacement) ? { ...word, dynamic: true } : word));
}

/**
 * A word that is a program name holding `replacement`, without it: what is
 * left is the only literal part (`r{}` runs `r` followed by an argument).
 */
export function withoutReplacement(text: string, replacement: string | null): string {
  return replacement === null ? text : text.replaceAll(replacement, '');
}

/**
 * What parallel reads in place of a replacement string: a quoted expansion,
 * one argument whose value the classifier does not know.
 */
const PARALLEL_ARGUMENT = '"$PARALLEL_ARGUMENT"';
/** parallel's replacement strings besides `{}`: `{.}`, `{/}`, `{//}`, `{/.}`, `{#}`, `{%}`, `{3}`, `{3.}`... */
const PARALLEL_STRINGS = /\{[0-9]*(\.|\/|\/\/|\/\.)?\}|\{[#%]\}/g;

/**
 * A parallel command word with its replacement strings read as unknown
 * arguments; `braces` is what `{}` is called (`-I R` renames it). Null when
 * the word holds a `{= perl expression =}`, which runs Perl code.
 */
export function parallelWord(text: string, braces: string): string | null {
  if (text.includes('{=')) return null;
  const renamed = braces === '{}' ? text : text.replaceAll(braces, PARALLEL_ARGUMENT);
  return renamed.replace(PARALLEL_STRINGS, (found) =>
    braces !== '{}' && found === '{}' ? found : PARALLEL_ARGUMENT,
  );
}
