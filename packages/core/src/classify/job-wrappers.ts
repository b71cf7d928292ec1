/**
 * Programs whose operands are shell command lines, or whose command
 * follows a marker or a mode: moreutils' `pee CMD...` and `mispipe CMD1
 * CMD2` (each operand runs through `sh -c`), GNU parallel's `sem [OPTIONS]
 * CMD`, `nsjail [OPTIONS] -- CMD` and `dtach -c SOCKET [OPTIONS] CMD`.
 */
import type { ShellWord } from './lexed-line.js';
import { parallelOptions } from './parallel-options.js';
import { type Unwrapped, uncertainStart } from './unwrapped.js';
import { plainFrom, splitsBefore } from './word-text.js';

/** pee's own options; every other operand, `--help` included, is a command it runs. */
const PEE_OPTIONS = new Set([
  ...['--ignore-sigpipe', '--no-ignore-sigpipe', '--ignore-write-error'],
  '--no-ignore-write-error',
]);

/** Operands run through `sh -c`, each a line (`pee 'rm -rf x' cat`, `mispipe 'a' 'b'`). */
function shellOperands(operands: readonly ShellWord[]): Unwrapped {
  if (operands.length === 0) return { kind: 'no_command', tag: 'read' };
  return {
    kind: 'line',
    line: operands.map((word) => word.text).join('\n'),
    dynamic: operands.some((word) => word.dynamic),
  };
}

/**
 * `sem [OPTIONS] CMD...`: GNU parallel's semaphore, with parallel's options,
 * runs its command's words joined through a shell.
 */
function sem(words: readonly ShellWord[], from: number): Unwrapped {
  const read = parallelOptions(words, from, () => false);
  const uncertain = uncertainStart(read.unknownOption, splitsBefore(words, from, read.index));
  if (read.index >= words.length) return { kind: 'no_command', tag: 'unknown' };
  const certain = uncertain.tags === undefined && !read.runsCode;
  // Plain words read the same through the shell: read in place.
  if (certain && plainFrom(words) <= read.index) return { kind: 'words', from: read.index };
  const rest = words.slice(read.index);
  const line = rest.map((word) => word.text).join(' ');
  const dynamic = !certain || rest.some((word) => word.dynamic);
  return { kind: 'line', line, dynamic, ...uncertain };
}

/** `nsjail [OPTIONS] -- CMD...`: the command follows `--`; without one it runs its configured one. */
function nsjail(words: readonly ShellWord[], from: number): Unwrapped {
  const marker = words.findIndex((word, index) => index >= from && word.text === '--');
  if (marker < 0 || marker + 1 >= words.length) return { kind: 'no_command', tag: 'unknown' };
  return { kind: 'words', from: marker + 1 };
}

/** dtach's modes that start a command (`-a` and `-p` attach to one running). */
const DTACH_STARTS = new Set(['-c', '-A', '-n', '-N']);

/** `dtach -c|-A|-n|-N SOCKET [-E] [-z] [-e CHAR] [-r METHOD] CMD...`. */
function dtach(words: readonly ShellWord[], from: number): Unwrapped {
  if (!DTACH_STARTS.has(words[from]?.text ?? '')) return { kind: 'no_command', tag: 'unknown' };
  let index = from + 2;
  let unknownOption = false;
  while (index < words.length && words[index]!.text.startsWith('-')) {
    const text = words[index]!.text;
    index++;
    if (text === '--') break;
    if (text === '-e' || text === '-r') index++;
    else if (!/^-[Ez]+$/.test(text) && !/^-[er]./.test(text)) unknownOption = true;
  }
  if (index >= words.length) return { kind: 'no_command', tag: 'unknown' };
  const uncertain = uncertainStart(unknownOption, splitsBefore(words, from, index));
  return { kind: 'words', from: index, ...uncertain };
}

/** The programs this file reads. */
export const JOB_WRAPPERS: readonly string[] = ['pee', 'mispipe', 'sem', 'nsjail', 'dtach'];

/** What `pee`, `mispipe`, `sem`, `nsjail` or `dtach` runs; null for any other program. */
export function jobWrapper(
  program: string,
  words: readonly ShellWord[],
  from: number,
): Unwrapped | null {
  if (program === 'pee') {
    return shellOperands(words.slice(from).filter((word) => !PEE_OPTIONS.has(word.text)));
  }
  if (program === 'mispipe') return shellOperands(words.slice(from));
  if (program === 'sem') return sem(words, from);
  if (program === 'nsjail') return nsjail(words, from);
  if (program === 'dtach') return dtach(words, from);
  return null;
}
