import type { ShellWord } from './lexed-line.js';
import { type ProgramValues, recordProgramValue } from './program-variables.js';

/** `${c:=rm}`, `${c=rm}`: bash assigns the literal default to an unset (or empty) c. */
const DEFAULT_ASSIGNMENT = /\$\{([A-Za-z_][A-Za-z0-9_]*):?=([^$`{}'"\\]*)\}/g;

/**
 * Records the values a command's words assign with `${NAME:=VALUE}` or `${NAME=VALUE}`
 * wherever they stand (`: ${c:=rm}; $c x` runs rm): each literal default is one value more.
 */
export function recordDefaultAssignments(words: readonly ShellWord[], values: ProgramValues): void {
  for (const word of words) {
    if (!word.dynamic || !word.text.includes('=')) continue;
    for (const match of word.text.matchAll(DEFAULT_ASSIGNMENT))
      recordProgramValue(values, match[1]!, match[2]!);
  }
}
