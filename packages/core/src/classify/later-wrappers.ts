import { parallelOptions } from './parallel-options.js';
import { parallelWord } from './replacement-strings.js';
import type { ShellWord } from './shell-lexer.js';
import { appendedWordsAct } from './split-options.js';
import { type Unwrapped, uncertainStart } from './unwrapped.js';
import { plainFrom, splitsBefore } from './word-text.js';

const WATCH_VALUED = new Set(['-n', '--interval', '-q', '--equexit', '-s', '--shotsdir']);
/** watch's options that take no value (`-d` and `--differences` take theirs attached only). */
const WATCH_FLAGS = new Set([
  ...['-b', '--beep', '-c', '--color', '-C', '--no-color', '-d', '--differences', '-e'],
  ...['--errexit', '-g', '--chgexit', '-p', '--precise', '-r', '--no-rerun', '-t'],
  ...['--no-title', '-w', '--no-wrap', '-x', '--exec', '-f', '--follow'],
]);
const PARALLEL_INPUTS = /^(:::|::::|:::\+|::::\+)$/;

function joined(words: readonly ShellWord[]): { line: string; dynamic: boolean } {
  return {
    line: words.map((word) => word.text).join(' '),
    dynamic: words.some((word) => word.dynamic),
  };
}

/** watch's long options, for the prefixes getopt_long takes (`--interv 1`). */
const WATCH_LONG = [...WATCH_VALUED, ...WATCH_FLAGS].filter((option) => option.startsWith('--'));

/**
 * Reads one of watch's option words as getopt_long does: a long option or
 * its unambiguous prefix, or a cluster of short ones (`-tn 1`), where `n`,
 * `q` and `s` take the rest of the word or the next one and `d` takes the
 * rest only. Says how many words it spans, and whether it is `-x` or unknown.
 */
function watchOption(text: string): { span: number; exec: boolean; unknown: boolean } {
  if (text.startsWith('--')) {
    const name = text.split('=')[0]!;
    // An ambiguous prefix (`--no`) is refused by watch: unknown, as an option it does not list.
    const matches = WATCH_LONG.filter((option) => option.startsWith(name));
    const full = WATCH_LONG.includes(name) ? name : matches.length === 1 ? matches[0] : undefined;
    if (full === undefined) return { span: 1, exec: false, unknown: true };
    const span = WATCH_VALUED.has(full) && !text.includes('=') ? 2 : 1;
    return { span, exec: full === '--exec', unknown: false };
  }
  if (text === '-') return { span: 1, exec: false, unknown: true };
  let exec = false;
  for (let at = 1; at < text.length; at++) {
    const letter = `-${text[at]}`;
    if (letter === '-d') break;
    if (WATCH_VALUED.has(letter))
      return { span: at === text.length - 1 ? 2 : 1, exec, unknown: false };
    if (!WATCH_FLAGS.has(letter)) return { span: 1, exec, unknown: true };
    if (letter === '-x') exec = true;
  }
  return { span: 1, exec, unknown: false };
}

/** `watch [-n s] command...`: the words, joined, run through `sh -c` (with `-x`, run as they are). */
function watch(words: readonly ShellWord[], from: number): Unwrapped {
  let index = from;
  let exec = false;
  // An option watch does not list may take the command's first word as its value.
  let unknownOption = false;
  while (index < words.length && words[index]!.text.startsWith('-')) {
    const text = words[index]!.text;
    if (text === '--') {
      index++;
      break;
    }
    const option = watchOption(text);
    exec ||= option.exec;
    unknownOption ||= option.unknown;
    index += option.span;
  }
  // A word bash splits among the options (`-n $N`) may carry the command.
  const splits = splitsBefore(words, from, index);
  const uncertain = uncertainStart(unknownOption, splits);
  if (index >= words.length) return { kind: 'no_command', tag: 'unknown' };
  if (exec) return { kind: 'words', from: index, ...uncertain };
  const certain = !unknownOption && !splits;
  // Plain words read the same through `sh -c`: read in place, so `watch watch ... CMD` stays linear.
  if (certain && plainFrom(words) <= index) return { kind: 'words', from: index };
  const line = joined(words.slice(index));
  if (certain) return { kind: 'line', ...line };
  return {
    kind: 'line',
    line: line.line,
    dynamic: true,
    note: 'watch has an option it may not take alone',
    ...uncertain,
  };
}

/** flock's long options taking a value, given apart or after `=` (any unambiguous prefix too). */
const FLOCK_VALUED_LONG = ['wait', 'timeout', 'conflict-exit-code'];
const FLOCK_FLAGS_LONG = [
  ...['shared', 'exclusive', 'unlock', 'nonblock', 'nb', 'close', 'no-fork', 'verbose'],
];
const FLOCK_LOOKUP_LONG = ['help', 'version'];
/** flock's short options: `w` and `E` take a value, the rest of the word or the next one. */
const FLOCK_SHORT_VALUED = 'wE';
const FLOCK_SHORT_FLAGS = 'sexnoFu';

/** The long option `name` abbreviates among `options`, or undefined. */
function flockLong(name: string, options: readonly string[]): string | undefined {
  return options.find((option) => option === name) ?? options.find((o) => o.startsWith(name));
}

/**
 * Where flock's options end (it stops at its first operand, the lock), and
 * whether one was unknown or asked only for help. A short cluster may end in
 * `w` or `E` with its value in the next word (`-nw 5`).
 */
function flockOptions(words: readonly ShellWord[], from: number) {
  let index = from;
  let unknownOption = false;
  while (index < words.length) {
    const text = words[index]!.text;
    if (text === '--') return { index: index + 1, unknownOption, lookup: false };
    if (!text.startsWith('-') || text === '-') break;
    index++;
    if (text.startsWith('--')) {
      const name = text.slice(2).split('=')[0]!;
      if (flockLong(name, FLOCK_LOOKUP_LONG) !== undefined) {
        return { index, unknownOption, lookup: true };
      }
      const valued = name !== '' && flockLong(name, FLOCK_VALUED_LONG) !== undefined;
      if (valued && !text.includes('=')) index++;
      if (!valued && (name === '' || flockLong(name, FLOCK_FLAGS_LONG) === undefined)) {
        unknownOption = true;
      }
      continue;
    }
    for (let at = 1; at < text.length; at++) {
      const letter = text[at]!;
      if (letter === 'h' || letter === 'V') return { index, unknownOption, lookup: true };
      if (FLOCK_SHORT_VALUED.includes(letter)) {
        if (at === text.length - 1) index++;
        break;
      }
      if (!FLOCK_SHORT_FLAGS.includes(letter)) unknownOption = true;
    }
  }
  return { index, unknownOption, lookup: false };
}

/**
 * `flock [opts] file command...`, `flock [opts] file -c 'command'`,
 * `flock [opts] fd`. An option it does not list may take the lock's word as
 * its value: the command is then `unknown` as well, read as if it took none.
 */
function flock(words: readonly ShellWord[], from: number): Unwrapped {
  const { index: lock, unknownOption, lookup } = flockOptions(words, from);
  if (lookup) return { kind: 'no_command', tag: 'read' };
  const splits = splitsBefore(words, from, lock + 1);
  const unknown = unknownOption || splits;
  const tags = uncertainStart(unknownOption, splits);
  const after = words[lock + 1];
  if (after === undefined) return { kind: 'no_command', tag: unknown ? 'unknown' : 'read' };
  if (after.text === '-c' || after.text === '--command') {
    const command = words[lock + 2];
    if (command === undefined) return { kind: 'no_command', tag: 'unknown' };
    return { kind: 'line', line: command.text, dynamic: command.dynamic || unknown, ...tags };
  }
  return { kind: 'words', from: lock + 1, ...tags };
}

/** Per word array: the index of its last `:::`-like word, or -1 (worked out once per array). */
const LAST_INPUTS = new WeakMap<readonly ShellWord[], number>();

function lastInputs(words: readonly ShellWord[]): number {
  let last = LAST_INPUTS.get(words);
  if (last === undefined) {
    last = words.length - 1;
    while (last >= 0 && !PARALLEL_INPUTS.test(words[last]!.text)) last--;
    LAST_INPUTS.set(words, last);
  }
  return last;
}

/**
 * GNU `parallel CMD ::: args`: the command with the literal arguments
 * appended (they may be options such as `-rf`); `parallel ::: 'cmd1' 'cmd2'`
 * runs each argument as a command; commands or arguments read from a file
 * (`::::`) or the input are not seen.
 */
function parallel(words: readonly ShellWord[], from: number): Unwrapped {
  const read = parallelOptions(words, from, (text) => PARALLEL_INPUTS.test(text));
  const { index, braces } = read;
  if (read.unknownOption || splitsBefore(words, from, index)) {
    // The command may start a word later: read the words, and the line is unknown; an option
    // parallel does not have leaves what runs unread, so it carries every tag but read.
    const { line } = joined(words.slice(index));
    return {
      kind: 'line',
      line,
      dynamic: true,
      note: 'parallel has an option it may not take alone',
      ...uncertainStart(read.unknownOption, false),
    };
  }
  const command = parallelCommand(words, index, braces);
  // `--ssh CMD`, `--filter PERL`...: what that code does is not read.
  if (!read.runsCode || command.kind === 'no_command') return command;
  return { ...command, tags: [...(command.tags ?? []), 'unknown'] };
}

/** What parallel runs once its options are read: its command, from `index`, with its arguments. */
function parallelCommand(words: readonly ShellWord[], index: number, braces: string): Unwrapped {
  // Plain words, no `:::` and no replacement string: the shell reads them as they are, in place.
  const plain = plainFrom(words) <= index && lastInputs(words) < index && words.length > index;
  if (plain && braces === '{}') return { kind: 'words', from: index, appendsInput: true };
  const separator = words.findIndex((word, at) => at >= index && PARALLEL_INPUTS.test(word.text));
  const written = words.slice(index, separator < 0 ? words.length : separator);
  const command = replaced(written, braces);
  const inputs = separator < 0 ? [] : words.slice(separator);
  const fromFile = inputs.some((word) => word.text.startsWith('::::'));
  const literals = inputs.filter((word) => !PARALLEL_INPUTS.test(word.text));
  if (command === null) {
    const { line } = joined([...written, ...literals]);
    return { kind: 'line', line, dynamic: true, note: 'parallel runs a Perl expression' };
  }
  if (command.length > 0) {
    const { line, dynamic } = joined([...command, ...(fromFile ? [] : literals)]);
    // Without `:::` the arguments come from the input, added to the command as xargs adds them.
    const program = command[0]!.text.trim().split(/\s/)[0]!;
    const appended = separator < 0 && appendedWordsAct(program.slice(program.lastIndexOf('/') + 1));
    return { kind: 'line', line, dynamic: dynamic || appended };
  }
  if (separator < 0 || fromFile) {
    return {
      kind: 'line',
      line: '',
      dynamic: true,
      note: 'parallel runs commands read from its input or a file',
    };
  }
  return {
    kind: 'line',
    line: literals.map((word) => word.text).join('\n'),
    dynamic: literals.some((word) => word.dynamic),
  };
}

/** parallel's command words with their replacement strings read as unknown arguments; null for Perl. */
function replaced(command: readonly ShellWord[], braces: string): ShellWord[] | null {
  const out: ShellWord[] = [];
  for (const word of command) {
    const text = parallelWord(word.text, braces);
    if (text === null) return null;
    out.push(text === word.text ? word : { ...word, text });
  }
  return out;
}

/** entr's options, all without a value. */
const ENTR_FLAGS = /^-[acdnprsz]+$/;

/**
 * `entr [-acdnprsz] COMMAND...` runs its command each time a file it reads
 * from its input changes; with `-s` its first operand is a shell command line.
 * An option it does not list makes the command `unknown` as well.
 */
function entr(words: readonly ShellWord[], from: number): Unwrapped {
  let index = from;
  let shell = false;
  let unknownOption = false;
  while (index < words.length && words[index]!.text.startsWith('-')) {
    const text = words[index]!.text;
    index++;
    if (text === '--') break;
    if (!ENTR_FLAGS.test(text)) unknownOption = true;
    if (text.includes('s')) shell = true;
  }
  const splits = splitsBefore(words, from, index);
  const tags = uncertainStart(unknownOption, splits);
  if (index >= words.length) return { kind: 'no_command', tag: 'unknown' };
  if (!shell) return { kind: 'words', from: index, ...tags };
  const script = words[index]!;
  const dynamic = script.dynamic || unknownOption || splits;
  return { kind: 'line', line: script.text, dynamic, ...tags };
}

/**
 * Wrappers that run their command later or repeatedly through a shell
 * (`watch`, `parallel`, `flock -c`, `entr`); null for any other program.
 */
export function laterWrapper(
  program: string,
  words: readonly ShellWord[],
  from: number,
): Unwrapped | null {
  if (program === 'watch') return watch(words, from);
  if (program === 'flock') return flock(words, from);
  if (program === 'parallel') return parallel(words, from);
  if (program === 'entr') return entr(words, from);
  return null;
}
