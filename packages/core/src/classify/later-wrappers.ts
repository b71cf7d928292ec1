import type { ShellWord } from './shell-lexer.js';
import type { Unwrapped } from './unwrapped.js';

const WATCH_VALUED = new Set(['-n', '--interval', '-q', '--equexit']);
const FLOCK_VALUED = new Set(['-E', '-w', '--timeout', '--conflict-exit-code']);
const PARALLEL_VALUED = new Set([
  ...['-j', '-P', '-S', '-a', '-n', '-N', '-L', '-l', '-d', '-E', '-I', '-C', '--colsep'],
  ...['--jobs', '--sshlogin', '--arg-file', '--max-args', '--max-lines', '--delimiter', '--eof'],
  ...['--results', '--res', '--joblog', '--delay', '--timeout', '--halt', '--env', '--workdir'],
  ...['--wd', '--tmpdir', '--tagstring', '--basefile', '--bf', '--return', '--transferfile'],
  ...['--tf', '--sshloginfile', '--slf', '--memfree', '--load', '--retries', '--block'],
]);
const PARALLEL_INPUTS = /^(:::|::::|:::\+|::::\+)$/;

function joined(words: readonly ShellWord[]): { line: string; dynamic: boolean } {
  return {
    line: words.map((word) => word.text).join(' '),
    dynamic: words.some((word) => word.dynamic),
  };
}

/** `watch [-n s] command...`: the words, joined, run through `sh -c` (with `-x`, run as they are). */
function watch(words: readonly ShellWord[], from: number): Unwrapped {
  let index = from;
  let exec = false;
  while (index < words.length && words[index]!.text.startsWith('-')) {
    const text = words[index]!.text;
    if (text === '--') {
      index++;
      break;
    }
    if (text === '-x' || text === '--exec') exec = true;
    index += WATCH_VALUED.has(text) ? 2 : 1;
  }
  if (index >= words.length) return { kind: 'no_command', tag: 'unknown' };
  if (exec) return { kind: 'words', from: index };
  return { kind: 'line', ...joined(words.slice(index)) };
}

/** `flock [opts] file command...`, `flock [opts] file -c 'command'`, `flock [opts] fd`. */
function flock(words: readonly ShellWord[], from: number): Unwrapped {
  let index = from;
  let lockSeen = false;
  while (index < words.length) {
    const text = words[index]!.text;
    if (text === '-c' || text === '--command') {
      const command = words[index + 1];
      if (command === undefined) return { kind: 'no_command', tag: 'unknown' };
      return { kind: 'line', line: command.text, dynamic: command.dynamic };
    }
    if (lockSeen) return { kind: 'words', from: index };
    if (text.startsWith('-')) index += FLOCK_VALUED.has(text) ? 2 : 1;
    else {
      lockSeen = true;
      index++;
    }
  }
  return { kind: 'no_command', tag: 'read' };
}

/**
 * GNU `parallel CMD ::: args`: the command with the literal arguments
 * appended (they may be options such as `-rf`); `parallel ::: 'cmd1' 'cmd2'`
 * runs each argument as a command; commands or arguments read from a file
 * (`::::`) or the input are not seen.
 */
function parallel(words: readonly ShellWord[], from: number): Unwrapped {
  let index = from;
  while (index < words.length) {
    const text = words[index]!.text;
    if (text === '--') {
      index++;
      break;
    }
    if (!text.startsWith('-') || PARALLEL_INPUTS.test(text)) break;
    index += PARALLEL_VALUED.has(text) ? 2 : 1;
  }
  const separator = words.findIndex((word, at) => at >= index && PARALLEL_INPUTS.test(word.text));
  const command = words.slice(index, separator < 0 ? words.length : separator);
  const inputs = separator < 0 ? [] : words.slice(separator);
  const fromFile = inputs.some((word) => word.text.startsWith('::::'));
  const literals = inputs.filter((word) => !PARALLEL_INPUTS.test(word.text));
  if (command.length > 0) {
    const { line, dynamic } = joined([...command, ...(fromFile ? [] : literals)]);
    return { kind: 'line', line, dynamic };
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

/**
 * Wrappers that run their command later or repeatedly through a shell
 * (`watch`, `parallel`, `flock -c`); null for any other program.
 */
export function laterWrapper(
  program: string,
  words: readonly ShellWord[],
  from: number,
): Unwrapped | null {
  if (program === 'watch') return watch(words, from);
  if (program === 'flock') return flock(words, from);
  if (program === 'parallel') return parallel(words, from);
  return null;
}
