import { forTerminal } from '@airlock/core/command-line';
import { looksLikeToken } from './secret-input.js';

/** The longest word `airlock` repeats back as an unknown command; no command name comes near it. */
const LONGEST_SHOWN = 40;

/**
 * What `airlock <word>` says of a word that names no command. A token pasted
 * where the command goes (`airlock $TOKEN`) must not be printed into terminal
 * scrollback and CI logs, so a word that holds a kernel token (`alk_…`) or is
 * longer than any command could be (over 40 characters: a key, a hash, a
 * pasted line) is not repeated; a shorter one is shown with its control
 * characters escaped.
 */
export function unknownCommandLine(word: string): string {
  return mayBeSecret(word)
    ? 'unknown command (not repeated here: it may be a secret)'
    : `unknown command ${forTerminal(word)}`;
}

/**
 * What `airlock COMMAND <word>` says of a word that names none of its verbs:
 * the word quoted, unless it may be a secret (as {@link unknownCommandLine}),
 * then the verbs there are.
 */
export function unknownVerbLine(command: string, verb: string, verbs: readonly string[]): string {
  const shown = mayBeSecret(verb)
    ? 'unknown verb (not repeated here: it may be a secret)'
    : `unknown verb "${forTerminal(verb)}"`;
  return `airlock ${command}: ${shown} (${verbs.join(', ')})`;
}

/** A word that holds a kernel token, or is longer than any command or verb could be. */
export function mayBeSecret(word: string): boolean {
  // Each piece between punctuation, so `--token=alk_…` or `'alk_…'` is caught as well as `alk_…`.
  const pieces = word.split(/[^A-Za-z0-9_-]+/);
  return word.length > LONGEST_SHOWN || pieces.some(looksLikeToken);
}
