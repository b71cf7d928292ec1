import { optionValues } from './flags.js';
import type { LexedSegment, ShellWord } from './lexed-line.js';
import { defaultVariableFiles } from './node-wrappers.js';
import { programName } from './program-paths.js';
import { textsOf, type WalkTargets } from './walk.js';

/* What the segment walker (segment-walker.ts) records of words it passes without reading them as a program's. */

/**
 * What a wrapper's own words name (`env -C secrets cat key`, `flock secrets/lock cat x`): its
 * words as paths, its `-C`/`--chdir` as a directory change; an xargs reading its words from a
 * pipe or a file (no here-string) runs its command on words no one can read here.
 */
export function wrapperTargets(
  targets: WalkTargets,
  words: readonly ShellWord[],
  at: number,
  from: number,
  segment: LexedSegment,
): void {
  const own = words.slice(at + 1, from);
  pushWords(targets, own);
  const program = programName(words[at]!.text);
  if (program === 'env' || program === 'sudo') {
    const texts = textsOf(own);
    for (const chdir of optionValues(
      texts,
      program === 'env' ? ['-C', '--chdir'] : ['-D', '--chdir'],
    )) {
      targets.directories.push(chdir === '' || /[$`~]/.test(chdir) ? null : chdir);
    }
  }
  if (program === 'xargs' && segment.inputs.length === 0) targets.opaque.push('xargs');
  targets.words.push(...defaultVariableFiles(program, textsOf(own)));
}

/** Records words as paths the command may open, as they are written. */
export function pushWords(targets: WalkTargets, words: readonly ShellWord[]): void {
  for (const word of words) {
    targets.words.push(word.text);
    if (word.dynamic) targets.expanded.push(word.text);
  }
}
