import { expansionCommands } from './command-variables.js';
import { type EmbeddedCommands, noEmbedded } from './embedded.js';
import type { ShellWord } from './lexed-line.js';
import type { ProgramValues } from './program-variables.js';

/** `${x@P}`, `${x[0]@P}`: the value expanded as a prompt string is. */
const PROMPT_REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?:\[[^\]]*\])?@P\}/g;

/**
 * The commands a word's `${x@P}` runs: bash expands x's value as it expands a prompt, so the
 * `$(...)` and backticks of a value the line gives x run (`x='$(rm y)'; echo ${x@P}`).
 */
export function promptCommands(
  words: readonly ShellWord[],
  values: ProgramValues | undefined,
): EmbeddedCommands {
  const out = noEmbedded();
  if (values === undefined) return out;
  for (const word of words) {
    if (!word.dynamic || !word.text.includes('@P}')) continue;
    for (const match of word.text.matchAll(PROMPT_REFERENCE)) {
      for (const value of values.get(match[1]!) ?? []) {
        expansionCommands(value, `\${${match[1]}@P}`, out);
      }
    }
  }
  return out;
}
