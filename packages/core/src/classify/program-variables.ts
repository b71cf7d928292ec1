import { recordBuiltinValues } from './builtin-values.js';
import type { LexedSegment, ShellWord } from './lexed-line.js';
import { DECLARERS } from './line-variables.js';
import { programWordValues } from './program-word-values.js';
import { substitutionValue } from './substitution-values.js';

/*
 * The values a line gives its variables, read where a command's program is one of them: `v=rm;
 * $v -rf x` and `a=(rm -rf); "${a[@]}" x` run rm. Only what the line assigns is known, so such a
 * program stays `unknown` (another value may reach it: the environment, `read v`, a loop's later
 * turn), and each value it may hold adds its own tags.
 */

type LexedInputs = LexedSegment['inputs'];

/** Per variable, the literal values the line assigns it (at most {@link MAX_VALUES}). */
export type ProgramValues = Map<string, string[]>;

const MAX_VALUES = 4;
/** How many values one classification reads as programs, wherever they are. */
export const MAX_PROGRAM_VALUES = 16;
const NAMED = /^([A-Za-z_][A-Za-z0-9_]*)(\[[^\]]*\])?\+?=/;
/** `$v`, `${v}`, `${v[@]}`, `${v[*]}`, `${v[0]}`: a word that is a variable's value, or its elements. */
const REFERENCE =
  /^\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)(?:\[(?:[@*]|[0-9]+)\])?\})$/;
/** `${X:-rm}`, `${X-rm}`, `${X:=rm}`, `${X=rm}` with a literal default. */
const DEFAULTED = /^\$\{([A-Za-z_][A-Za-z0-9_]*):?[-=]([^$`{}'"\\]+)\}$/;

/** Records one value of a variable. */
export function recordProgramValue(values: ProgramValues, name: string, value: string): void {
  const known = values.get(name) ?? [];
  if (known.length < MAX_VALUES && !known.includes(value)) known.push(value);
  values.set(name, known);
}

/**
 * Records an assignment word (`v=rm`, `a=(rm -rf)`, `v=$(echo rm)`, `d=${v}m`), unless its
 * value holds an expansion it cannot read (see expandedValues).
 */
export function recordAssignedProgram(values: ProgramValues, word: ShellWord): void {
  const named = NAMED.exec(word.text);
  if (named === null) return;
  const written = word.text.slice(named[0].length);
  // `c=r; c+=m` makes rm: each value known so far is appended to.
  const appended = named[0].endsWith('+=') ? [...(values.get(named[1]!) ?? [])] : [];
  for (const value of word.dynamic ? expandedValues(written, values) : [written]) {
    for (const known of appended) recordProgramValue(values, named[1]!, known + value);
    recordProgramValue(values, named[1]!, value);
  }
}

/**
 * The values an assigned expansion takes: what a substitution of echo or printf prints
 * (`c=$(echo rm)`), or each value of known variables it is built of (`d=${c}m`, `c=${X:-rm}`).
 */
function expandedValues(written: string, values: ProgramValues): string[] {
  const printed = substitutionValue(written);
  if (printed !== null) return [printed];
  return (programAlternatives(written, values) ?? []).map((words) => words.join(' '));
}

/** Records what a declaration assigns (`export v=rm`, `local a=(rm -rf)`): `words` from `from` on. */
export function recordDeclaredPrograms(
  values: ProgramValues,
  program: string,
  { words, from, inputs }: { words: readonly ShellWord[]; from: number; inputs: LexedInputs },
): void {
  // `set -- rm x`, `read c <<< rm`, `printf -v c rm` give values too.
  recordBuiltinValues(program, { words, from, inputs }, (name, value) =>
    recordProgramValue(values, name, value),
  );
  if (program === 'shift') recordShift(values, words[from]);
  if (!DECLARERS.has(program)) return;
  // `declare -n r=c`: $r is c's value, whatever the line gives c after.
  let nameref = false;
  for (let index = from; index < words.length; index++) {
    const word = words[index]!;
    if (/^-[a-zA-Z]*n/.test(word.text)) nameref = true;
    recordAssignedProgram(values, word);
    const named =
      nameref && !word.dynamic ? /^([A-Za-z_]\w*)=([A-Za-z_]\w*)$/.exec(word.text) : null;
    if (named !== null) recordProgramValue(values, `&${named[1]}`, named[2]!);
  }
}

/** The values of a variable, and of those it refers to (`declare -n r=c`: c's for r). */
function valuesOf(values: ProgramValues, name: string): string[] {
  const referred = (values.get(`&${name}`) ?? []).flatMap((target) => values.get(target) ?? []);
  return [...(values.get(name) ?? []), ...referred];
}

/**
 * The words each value the line assigns a program word's variable gives (`rm -rf` of `$v`
 * after `v='rm -rf'`, of `${a[@]}` after `a=(rm -rf)`), split at blanks with quotes dropped,
 * which reads more words than bash may, never fewer, and a literal default (`rm` of `${X:-rm}`);
 * null when the word is no plain reference or default, or the line gives no literal value.
 */
export function programAlternatives(text: string, values: ProgramValues): string[][] | null {
  const match = REFERENCE.exec(text);
  // `${X:-rm}` and `${X=rm}` run rm when X is unset or empty: the default is one value more.
  const fallback = DEFAULTED.exec(text);
  const name = match === null ? fallback?.[1] : (match[1] ?? match[2]!);
  // `$(echo rm) x` and `eval "$(echo rm x)"` run what the substitution prints.
  const printed = match === null && fallback === null ? substitutionValue(text) : null;
  const known = [
    ...(name === undefined ? [] : valuesOf(values, name)),
    ...(fallback === null ? [] : [fallback[2]!]),
    ...(printed === null ? [] : [printed]),
  ];
  const separator = separators(values);
  if (known.length === 0) return wordAlternatives(text, values, separator);
  const alternatives = known
    .map((value) => {
      const array = /^\((.*)\)$/s.exec(value);
      const inner = array === null ? value : array[1]!.replace(/['"]/g, '');
      const words = inner.split(separator).filter((word) => word !== '');
      // `a=([0]=rm [1]=x)` sets its elements by index: the index is no part of the value.
      return array === null ? words : words.map((word) => word.replace(/^\[[^\]]*\]=/, ''));
    })
    .filter((words) => words.length > 0);
  return alternatives.length === 0 ? null : alternatives;
}

/**
 * Where a value is split into words: at blanks, and at every character a value the line gives
 * IFS holds (`IFS=,; c=rm,x; $c` runs rm x); more words than bash may make, never fewer.
 */
function separators(values: ProgramValues): RegExp {
  const characters = new Set((values.get('IFS') ?? []).join(''));
  if (characters.size === 0) return /\s+/;
  const escaped = [...characters].map((char) => char.replace(/[\\\]^-]/g, '\\$&')).join('');
  return new RegExp(`[\\s${escaped}]+`);
}

/** The words of each value a program word built of known variables takes (`${c}m`, `${c,,}`). */
function wordAlternatives(
  text: string,
  values: ProgramValues,
  separator: RegExp,
): string[][] | null {
  const alternatives = (programWordValues(text, values) ?? [])
    .map((value) => value.split(separator).filter((word) => word !== ''))
    .filter((words) => words.length > 0);
  return alternatives.length === 0 ? null : alternatives;
}

/**
 * `shift [N]` moves each positional parameter N places down (`set -- x rm; shift; $1` is rm):
 * the values it takes are added to those known, for N of 1 to 9 when N is an expansion.
 */
function recordShift(values: ProgramValues, count: ShellWord | undefined): void {
  const counts =
    count === undefined ? [1] : count.dynamic ? [1, 2, 3, 4, 5, 6, 7, 8, 9] : [Number(count.text)];
  const positional = Array.from({ length: 10 }, (_, index) => [
    ...(values.get(String(index)) ?? []),
  ]);
  const lists = [...(values.get('@') ?? [])];
  for (const by of counts) {
    if (!Number.isInteger(by) || by < 1 || by > 9) continue;
    for (let index = 1; index + by <= 9; index++)
      for (const value of positional[index + by]!) recordProgramValue(values, String(index), value);
    for (const list of lists) {
      const words = list
        .replace(/^\(|\)$/g, '')
        .split(' ')
        .slice(by);
      for (const name of ['@', '*']) recordProgramValue(values, name, `(${words.join(' ')})`);
    }
  }
}

/** Records the positional parameters a shell's script is given (`rm` of `sh -c '$0 x' rm`): `$0`, `$1`..., `$@`. */
export function recordPositionalPrograms(values: ProgramValues, words: readonly ShellWord[]): void {
  if (words.length === 0 || words.some((word) => word.dynamic)) return;
  for (const [index, word] of words.slice(0, 10).entries())
    recordProgramValue(values, String(index), word.text);
  const rest = `(${words
    .slice(1)
    .map((word) => word.text)
    .join(' ')})`;
  if (words.length > 1) for (const name of ['@', '*']) recordProgramValue(values, name, rest);
}

/** Records a `for NAME in LIST` or `select` loop's list words (`words[at]` is `for`, the list ends before `end`). */
export function recordLoopPrograms(
  values: ProgramValues,
  words: readonly ShellWord[],
  at: number,
  end: number,
): void {
  const name = words[at + 1]?.text ?? '';
  const list = words.findIndex((word, index) => index > at + 1 && word.text === 'in');
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) || list < 0 || list >= end) return;
  for (const word of words.slice(list + 1, end)) {
    if (!word.dynamic) recordProgramValue(values, name, word.text);
  }
}
