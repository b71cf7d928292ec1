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
  // Each piece between punctuation, so `--token=alk_…` or `'alk_…'` is caught as well as `alk_…`.
  const pieces = word.split(/[^A-Za-z0-9_-]+/);
  if (word.length > LONGEST_SHOWN || pieces.some(looksLikeToken)) {
    return 'unknown command (not repeated here: it may be a secret)';
  }
  return `unknown command ${forTerminal(word)}`;
}
