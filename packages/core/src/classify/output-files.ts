import { hasFlag, optionValues } from './flags.js';
import { writesNoFile } from './streams.js';
import type { ActionTag } from './tags.js';

const writesAFile = (values: readonly string[]) => values.some((value) => !writesNoFile(value));

/** The words of a command that are not options, nor the value of one of `valued`. */
function operands(args: readonly string[], valued: readonly string[] = []): string[] {
  return args.filter(
    (arg, index) => !arg.startsWith('-') && !valued.includes(args[index - 1] ?? ''),
  );
}

/** curl's short options that take a value: in a cluster (`-XPOST`, `-sSLo f`), the rest is it. */
const CURL_VALUED = new Set('ADEFHKPQTUXYbcdemortuwxyz');
const CURL_OUTPUTS = new Set(['o', 'D', 'c']);
const CURL_LONG_OUTPUTS = new Set([
  ...['--output', '--dump-header', '--cookie-jar', '--trace', '--trace-ascii', '--stderr'],
]);

/** Whether curl saves to a file: `-o FILE`, `-O` (the remote name), headers, cookies, a trace. */
function curlWritesAFile(args: readonly string[]): boolean {
  const values: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    if (arg === '--') break;
    if (arg.startsWith('--')) {
      const name = arg.split('=')[0]!;
      if (name === '--remote-name' || name === '--remote-name-all') return true;
      if (!CURL_LONG_OUTPUTS.has(name)) continue;
      values.push(arg.includes('=') ? arg.slice(name.length + 1) : (args[++index] ?? ''));
    } else if (/^-[^-]/.test(arg)) {
      for (let at = 1; at < arg.length; at++) {
        const letter = arg[at]!;
        if (letter === 'O') return true;
        if (!CURL_VALUED.has(letter)) continue;
        const value = at + 1 < arg.length ? arg.slice(at + 1) : (args[++index] ?? '');
        if (CURL_OUTPUTS.has(letter)) values.push(value);
        break;
      }
    }
  }
  return writesAFile(values);
}

/**
 * tsc's options (read without regard to case, as tsc does) that write a
 * file even under `--noEmit`: a trace or a profile, and the `.tsbuildinfo`
 * of an incremental or build-mode run.
 */
const TSC_WRITES_ANYWAY =
  /^(--(generatetrace|generatecpuprofile|incremental|build|tsbuildinfofile)(=|$)|-[ib]$)/i;
/** xxd's options that take a value (its long spellings with one dash). */
const XXD_VALUED = [
  ...['-c', '-cols', '-g', '-groupsize', '-l', '-len', '-n', '-name', '-o', '-s', '-seek'],
];

/** The letters of bash's `history` options, up to its first operand. */
function historyOptions(args: readonly string[]): string {
  let letters = '';
  for (const arg of args) {
    if (arg === '--' || !/^-[a-z]+$/.test(arg)) break;
    letters += arg.slice(1);
  }
  return letters;
}

/**
 * `history -w [FILE]` replaces FILE (or `$HISTFILE`) with the shell's
 * history, which a non-interactive shell keeps empty: `bash -c 'history -w
 * f'` leaves `f` empty, as `: > f` does (`write`, `delete`, `destructive`).
 */
function historyReplacesFile(args: readonly string[], tags: Set<ActionTag>): boolean {
  if (!historyOptions(args).includes('w')) return false;
  tags.delete('read');
  for (const tag of ['write', 'delete', 'destructive'] as const) tags.add(tag);
  return true;
}

/**
 * Programs that otherwise only read or fetch, writing a file an option or an
 * operand names, or the files they work on: `tsc` (unless `--noEmit`; its
 * `--generateTrace`, `--generateCpuProfile`, `--incremental` and `--build`
 * write anyway), `eslint --fix`, `--cache` and `-o`/`--output-file`, `yq -i`,
 * `tree -o`, `cloc --out`, `base64 -o`, `sort -o`, `less -o`, `uniq IN OUT`,
 * `xxd IN OUT` (with `-r` or without), `file -C`, `curl -o`/`-O`, `ssh -E`, `wget` (which saves what
 * it fetches unless told `-O -` or `--spider`), `history -a` (`-w` empties its file);
 * and the commands that set the machine's clock or name. Adds `write` (and
 * `external` for the machine's settings).
 */
export function outputTags(program: string, args: readonly string[], tags: Set<ActionTag>): void {
  let writes = false;
  // tsc takes no abbreviations: only the exact options keep it from writing.
  if (program === 'tsc') {
    writes =
      !args.some((arg) => ['--noEmit', '-v', '--version', '-h', '--help'].includes(arg)) ||
      args.some((arg) => TSC_WRITES_ANYWAY.test(arg));
  } else if (program === 'eslint') {
    // `--cache` keeps its results in `.eslintcache` (or its `--cache-location`).
    writes =
      hasFlag(args, '--fix', '--cache') || writesAFile(optionValues(args, ['-o', '--output-file']));
  } else if (program === 'yq') writes = hasFlag(args, '-i', '--inplace');
  else if (program === 'tree') writes = writesAFile(optionValues(args, ['-o']));
  else if (program === 'cloc') writes = writesAFile(optionValues(args, ['--out', '--report-file']));
  else if (program === 'base64') writes = writesAFile(optionValues(args, ['-o', '--output']));
  else if (program === 'sort') writes = writesAFile(optionValues(args, ['-o', '--output']));
  else if (program === 'less') {
    writes = writesAFile(optionValues(args, ['-o', '-O', '--log-file', '--LOG-FILE']));
  } else if (program === 'uniq') writes = operands(args, ['-f', '-s', '-w']).length >= 2;
  else if (program === 'xxd') writes = writesAFile(operands(args, XXD_VALUED).slice(1, 2));
  // `file -C` compiles the magic it is given into a `.mgc` file.
  else if (program === 'file') writes = hasFlag(args, '-C', '--compile');
  else if (program === 'curl') {
    writes = curlWritesAFile(args);
  } else if (program === 'ssh') {
    // `-E FILE` appends ssh's log to FILE (read in the remote command too: more, never less).
    writes = writesAFile(optionValues(args, ['-E']));
  } else if (program === 'wget') {
    const saved = optionValues(args, ['-O', '--output-document']);
    writes = saved.length > 0 ? writesAFile(saved) : !hasFlag(args, '--spider');
    writes ||= writesAFile(optionValues(args, ['-o', '--output-file', '-a', '--append-output']));
  } else if (program === 'history') {
    if (historyReplacesFile(args, tags)) return;
    writes = historyOptions(args).includes('a');
  } else if (
    (program === 'date' && args.some((arg) => /^(-s|--set(=.*)?)$/.test(arg))) ||
    (program === 'hostname' && (operands(args).length > 0 || hasFlag(args, '-F', '--file')))
  ) {
    tags.delete('read');
    tags.add('write');
    tags.add('external');
    return;
  }
  if (writes) tags.add('write');
}
