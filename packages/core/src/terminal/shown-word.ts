/**
 * How a command line repeats a word it was given (an unknown command, verb,
 * agent or option) without printing a secret pasted in its place into
 * terminal scrollback and CI logs.
 */
import { forTerminal } from './terminal-text.js';

/** The longest word a command line repeats back; no command, verb or flag name comes near it. */
const LONGEST_SHOWN = 40;

/** What is said in place of a word held back. */
const HELD_BACK = '(not repeated here: it may be a secret)';

/**
 * True of a word that holds a kernel token (`alk_…`) or is longer than any
 * command, verb or flag could be (over 40 characters: a key, a hash, a pasted
 * line). Each piece between punctuation is looked at, so `--token=alk_…` or
 * `'alk_…'` is caught as well as `alk_…`.
 */
export function mayBeSecret(word: string): boolean {
  const pieces = word.split(/[^A-Za-z0-9_-]+/);
  return word.length > LONGEST_SHOWN || pieces.some((piece) => piece.startsWith('alk_'));
}

/**
 * A word as a message may repeat it: with its control characters escaped,
 * or `(not repeated here: it may be a secret)` when {@link mayBeSecret} says
 * it may be one.
 */
export function shownWord(word: string): string {
  return mayBeSecret(word) ? HELD_BACK : forTerminal(word);
}

/**
 * What `PROGRAM <word>` says of a word that names no command (see {@link shownWord}):
 * a word that starts with a dash is an option (`--bogus`), not a command.
 */
export function unknownCommandLine(word: string): string {
  return `unknown ${word.startsWith('-') ? 'option' : 'command'} ${shownWord(word)}`;
}

/**
 * What `airlock COMMAND <word>` says of a word that names none of its verbs:
 * the word quoted, unless it may be a secret (see {@link shownWord}), then
 * the verbs there are.
 */
export function unknownVerbLine(command: string, verb: string, verbs: readonly string[]): string {
  const shown = mayBeSecret(verb) ? HELD_BACK : `"${forTerminal(verb)}"`;
  return `airlock ${command}: unknown verb ${shown} (${verbs.join(', ')})`;
}
