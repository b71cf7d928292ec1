import type { LexedSegment, ShellWord } from './lexed-line.js';

/*
 * The values builtins give variables from their literal words, read where a program is one of
 * them: `set -- rm x; "$@"`, `read c <<< rm; $c x`, `printf -v c rm; $c x` and
 * `mapfile -t a <<< rm; ${a[0]} x` run rm.
 */

/** Records one value of a variable (program-variables.ts bounds how many). */
type Record = (name: string, value: string) => void;

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `set -- a b`, `set a b`, `set -e a b`: the positional parameters `$1`..., `$@` and `$*`. */
function recordSet(args: readonly ShellWord[], record: Record): void {
  let at = 0;
  while (at < args.length && /^[-+]/.test(args[at]!.text) && args[at]!.text !== '--') {
    at += /^[-+]o$/.test(args[at]!.text) ? 2 : 1;
  }
  if (args[at]?.text === '--') at++;
  const values = args.slice(at);
  if (values.length === 0 || values.some((word) => word.dynamic)) return;
  for (const [index, word] of values.slice(0, 9).entries()) record(String(index + 1), word.text);
  const all = `(${values.map((word) => word.text).join(' ')})`;
  record('@', all);
  record('*', all);
}

/** `read [-r] NAME... <<< 'a b'` and `read -a NAME`: the fields of the here-string's first line. */
function recordRead(args: readonly ShellWord[], inputs: LexedSegment['inputs'], record: Record) {
  const input = inputs.length === 1 ? inputs[0]! : undefined;
  if (input === undefined || input.dynamic || args.some((word) => word.dynamic)) return;
  let at = 0;
  let array = false;
  for (; at < args.length && args[at]!.text.startsWith('-'); at++) {
    const option = args[at]!.text;
    if (option === '-a') array = true;
    else if (!/^-[rseE]+$/.test(option)) return;
  }
  const names = args.slice(at).map((word) => word.text);
  if (names.length === 0 || !names.every((name) => NAME.test(name))) return;
  const fields = (input.text.split('\n')[0] ?? '').trim().split(/\s+/);
  if (array) {
    record(names[0]!, `(${fields.join(' ')})`);
    return;
  }
  for (const [index, name] of names.entries()) {
    const last = index === names.length - 1;
    record(name, (last ? fields.slice(index) : fields.slice(index, index + 1)).join(' '));
  }
}

/** `printf -v NAME FORMAT` with a format of no `%` or `\`, or `%s` and one argument. */
function recordPrintf(args: readonly ShellWord[], record: Record): void {
  if (args[0]?.text !== '-v' || args.some((word) => word.dynamic)) return;
  const [name, format, ...rest] = args.slice(1).map((word) => word.text);
  if (name === undefined || format === undefined || !NAME.test(name)) return;
  if (!/[%\\]/.test(format)) record(name, format);
  else if (format === '%s' && rest.length === 1) record(name, rest[0]!);
}

/** mapfile's options taking a value (`-C CALLBACK` is a command, read by later-commands.ts). */
const MAPFILE_VALUED = new Set(['-d', '-n', '-O', '-s', '-u', '-C', '-c']);

/** `mapfile [-t] NAME <<< 'a'` and `readarray`: the here-string's lines, as an array. */
function recordMapfile(args: readonly ShellWord[], inputs: LexedSegment['inputs'], record: Record) {
  const input = inputs.length === 1 ? inputs[0]! : undefined;
  if (input === undefined || input.dynamic || args.some((word) => word.dynamic)) return;
  let at = 0;
  while (at < args.length && args[at]!.text.startsWith('-'))
    at += MAPFILE_VALUED.has(args[at]!.text) ? 2 : 1;
  const name = args[at]?.text ?? 'MAPFILE';
  if (!NAME.test(name)) return;
  const lines = input.text.split('\n').filter((line) => line.trim() !== '');
  record(name, `(${lines.join(' ')})`);
}

/** The builtins whose words give variables values. */
const VALUE_BUILTINS = new Set(['set', 'read', 'printf', 'mapfile', 'readarray']);

/**
 * Records the values `set`, `read` and `printf -v` give (their words from `from` on). Any other
 * program costs one set lookup: a line of 5,000 wrappers reaches here once per wrapper.
 */
export function recordBuiltinValues(
  program: string,
  {
    words,
    from,
    inputs,
  }: { words: readonly ShellWord[]; from: number; inputs: LexedSegment['inputs'] },
  record: Record,
): void {
  if (!VALUE_BUILTINS.has(program)) return;
  const args = words.slice(from);
  if (program === 'set') recordSet(args, record);
  else if (program === 'read') recordRead(args, inputs, record);
  else if (program === 'printf') recordPrintf(args, record);
  else recordMapfile(args, inputs, record);
}
