import type { ShellWord } from './lexed-line.js';
import { programName } from './program-paths.js';

/** Programs that change the shell's working directory for the commands after them. */
const CHANGERS = new Set(['cd', 'pushd', 'popd', 'chdir']);
/**
 * bash options that enter a directory the words do not say: autocd (a directory named as a
 * command), cdable_vars (`cd d` enters the value of `$d`), cdspell (`cd secrest` enters secrets).
 */
const DIRECTORY_OPTIONS = new Set(['autocd', 'cdable_vars', 'cdspell']);

/**
 * The directory a command makes the working directory (`cd secrets` -> `secrets`): undefined
 * for a command that does not change it, null for one whose new directory the words do not
 * say (`cd`, `cd -`, `cd ~`, `cd "$X"`, `popd`, `pushd +1`), so later relative words may name
 * anything. `words` start with the program.
 */
export function directoryChange(words: readonly ShellWord[]): string | null | undefined {
  const first = words[0];
  // After `shopt -s autocd` an interactive bash cds into a command named as a directory
  // (`bash -ic 'shopt -s autocd; secrets; cat key'`): any later command may change it.
  if (
    first?.text === 'shopt' &&
    words.some((word) => DIRECTORY_OPTIONS.has(word.text) || word.dynamic)
  ) {
    return words.some((word) => word.text === '-u') ? undefined : null;
  }
  if (first === undefined || first.dynamic || !CHANGERS.has(programName(first.text))) {
    return undefined;
  }
  if (programName(first.text) === 'popd') return null;
  let index = 1;
  // cd's own options: -L, -P, -e, -@ (bash); `--` ends them.
  while (index < words.length && /^-[LPe@]+$/.test(words[index]!.text)) index++;
  if (words[index]?.text === '--') index++;
  const target = words[index];
  if (target === undefined || target.dynamic) return null;
  const text = target.text;
  if (text === '' || text === '-' || /^[~+-]/.test(text) || /[$`]/.test(text)) return null;
  return text;
}

/**
 * Whether an assignment `BASHOPTS=...` (before a command, after `env`) turns on an option of
 * DIRECTORY_OPTIONS in the bash it starts (bash reads BASHOPTS from its environment), or may.
 */
export function assignsDirectoryOptions(word: ShellWord): boolean {
  const named = /^BASHOPTS\+?=(.*)$/s.exec(word.text);
  if (named === null) return false;
  return word.dynamic || named[1]!.split(':').some((option) => DIRECTORY_OPTIONS.has(option));
}
