import type { ShellWord } from './lexed-line.js';
import { programName } from './program-paths.js';
import { wordAfter } from './word-text.js';

/*
 * The values a line gives its variables, so a word that expands one (`cat $F` after
 * `F=secrets/key`, `cat $f` in `for f in secrets/*`) is read as the paths it may become.
 * A value no one can read here (`F=$(cmd)`, `F+=x`, `read F`, a `for` with no list) is null.
 */

/** What of a walk's targets the variables are recorded in (walk.ts's WalkTargets). */
interface VariableTargets {
  readonly variables: Map<string, (string | null)[]>;
  readonly words: string[];
  readonly printed: string[];
  readonly expanded: string[];
}

const NAMED = /^([A-Za-z_][A-Za-z0-9_]*)(\+?)=/;
/** An array element's assignment (`v[0]=x`): `$v` is element 0, so the value of `v` is unknown. */
const ELEMENT = /^([A-Za-z_][A-Za-z0-9_]*)\[[^\]]*\]\+?=/;
/** A word naming a variable or one of its elements, as `read` and `printf -v` take it. */
const NAME = /^([A-Za-z_][A-Za-z0-9_]*)(?:\[|$)/;
/** The builtins that declare variables (`export v=x`, `local a=(x y)`). */
export const DECLARERS = new Set(['export', 'declare', 'typeset', 'local', 'readonly']);
/** Builtins that set the variables their words name (`read F`, `mapfile -t L`, `getopts o OPT`). */
const NAME_SETTERS = new Set(['read', 'mapfile', 'readarray', 'getopts', 'wait']);

/**
 * The key recorded null when any variable may take a value the line does not say: a
 * nameref (`declare -n r=v; read r`) sets the variable it names through another name.
 */
export const EVERY_VARIABLE = '*';

function record(targets: VariableTargets, name: string, value: string | null): void {
  const values = targets.variables.get(name);
  if (values === undefined) targets.variables.set(name, [value]);
  else values.push(value);
}

/** Records an assignment word (`F=secrets/key`); an append or an expanded value is unknown. */
export function recordAssignment(targets: VariableTargets, word: ShellWord): void {
  const element = ELEMENT.exec(word.text);
  if (element !== null) record(targets, element[1]!, null);
  const named = NAMED.exec(word.text);
  if (named === null) return;
  const value = word.text.slice(named[0].length);
  record(targets, named[1]!, named[2] === '+' || word.dynamic ? null : value);
  if (value !== '') targets.words.push(value);
}

/**
 * The indexes of the assignments a declaration makes (`PATH=$PATH:/x` of `export
 * PATH=$PATH:/x`): each is read as the value it records, not as a word the program opens.
 */
export function declaredAssignments(words: readonly ShellWord[]): Set<number> {
  const first = words[0];
  const found = new Set<number>();
  if (first === undefined || first.dynamic || !DECLARERS.has(programName(first.text))) return found;
  for (const [index, word] of words.entries())
    if (index > 0 && NAMED.test(word.text)) found.add(index);
  return found;
}

/** Records what `export`, `declare`, `local`... assign (`words` start with the program). */
export function recordDeclarations(targets: VariableTargets, words: readonly ShellWord[]): void {
  const first = words[0];
  if (first === undefined || !DECLARERS.has(programName(first.text))) return;
  for (const word of words.slice(1)) recordAssignment(targets, word);
}

/**
 * Records the variables a builtin sets to values no one can read here (`words` start with the
 * program): the names `read`, `mapfile`, `getopts` and `wait -p` are given, `printf -v NAME`'s,
 * and every variable once a declaration makes a nameref (`declare -n`).
 */
export function recordSetters(targets: VariableTargets, words: readonly ShellWord[]): void {
  const first = words[0];
  if (first === undefined || first.dynamic) return;
  const program = programName(first.text);
  const rest = words.slice(1);
  if (NAME_SETTERS.has(program)) {
    for (const word of rest) {
      const name = NAME.exec(word.text)?.[1];
      if (name !== undefined) record(targets, name, null);
    }
  } else if (program === 'printf') {
    for (const [index, word] of rest.entries()) {
      const named = word.text === '-v' ? rest[index + 1]?.text : /^-v(.+)/.exec(word.text)?.[1];
      const name = NAME.exec(named ?? '')?.[1];
      if (name !== undefined) record(targets, name, null);
    }
  } else if (DECLARERS.has(program) && rest.some((word) => /^-[A-Za-z]*n/.test(word.text))) {
    record(targets, EVERY_VARIABLE, null);
  }
}

/**
 * Records a `for NAME in LIST` or `select NAME in LIST` loop's values (its list's words, each
 * also a word the line prints); without `in`, the loop runs over values no one can read here.
 */
export function recordLoop(
  targets: VariableTargets,
  words: readonly ShellWord[],
  at: number,
  end: number,
): void {
  const name = words[at + 1]?.text ?? '';
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) return;
  const list = wordAfter(words, at, 'in');
  if (list < 0 || list >= end) {
    record(targets, name, null);
    return;
  }
  for (const word of words.slice(list + 1, end)) {
    record(targets, name, word.dynamic ? null : word.text);
    // The list gives names, as `echo` does: a glob in it is read where `$NAME` is used.
    targets.printed.push(word.text);
    if (word.dynamic) targets.expanded.push(word.text);
  }
}
