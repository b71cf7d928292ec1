/**
 * GNU parallel's options, read as its Getopt::Long (configured with
 * `bundling` and `require_order`) reads them: one-letter options cluster
 * behind one dash (`-kj 4`, `-kj4`), a long option needs two dashes and may
 * be abbreviated to any unambiguous prefix (`--jobs` as `--job`), and the
 * first word that is no option starts the command.
 */
import type { ShellWord } from './lexed-line.js';

/** How an option takes its value: none, always (`=s`), or only when one follows that fits (`:s`, `:f`). */
type ValueKind = 'none' | 'required' | 'optional' | 'optional-number';

/** One option: its names (the first is its own), and its value. */
interface ParallelOption {
  readonly names: readonly string[];
  readonly value: ValueKind;
}

const option = (value: ValueKind, ...names: string[]): ParallelOption => ({ names, value });

/** parallel 20221122's options; aliases share an entry. */
const OPTIONS: readonly ParallelOption[] = [
  ...[
    ['jobs', 'j', 'max-procs', 'maxprocs', 'P'],
    ['arg-file', 'argfile', 'a'],
    ['arg-file-sep', 'argfilesep'],
    ['arg-sep', 'argsep'],
    ['basefile', 'bf'],
    ['basenameextensionreplace', 'bner'],
    ['basenamereplace', 'bnr'],
    ['bin'],
    ['block-size', 'blocksize', 'block'],
    ['block-timeout', 'blocktimeout', 'bt'],
    ['col-sep', 'colsep', 'C'],
    ['ctag-string', 'ctagstring'],
    ['debug', 'D'],
    ['delay'],
    ['delimiter', 'd'],
    ['dirnamereplace', 'dnr'],
    ['env'],
    ['extensionreplace', 'er'],
    ['filter'],
    ['group-by', 'groupby'],
    ['halt-on-error', 'haltonerror', 'halt'],
    ['header'],
    ['joblog', 'jl'],
    ['limit'],
    ['load'],
    ['max-args', 'maxargs', 'n'],
    ['max-chars', 'maxchars', 's'],
    ['max-replace-args', 'maxreplaceargs', 'N'],
    ['memfree'],
    ['memsuspend'],
    ['min-version', 'minversion'],
    ['nice'],
    ['linkinputsource', 'xapplyinputsource'],
    ['parens'],
    ['process-slot-var', 'processslotvar'],
    ['profile', 'J'],
    ['recend'],
    ['recstart'],
    ['results', 'result', 'res'],
    ['retries'],
    ['return'],
    ['rpl'],
    ['rsync-opts', 'rsyncopts'],
    ['semaphore-name', 'semaphorename', 'id'],
    ['semaphore-timeout', 'semaphoretimeout', 'st'],
    ['seqreplace'],
    ['shard'],
    ['shell-completion', 'shellcompletion'],
    ['slotreplace'],
    ['sql'],
    ['sql-and-worker', 'sqlandworker'],
    ['sql-master', 'sqlmaster'],
    ['sql-worker', 'sqlworker'],
    ['ssh'],
    ['ssh-delay', 'sshdelay'],
    ['sshlogin', 'S'],
    ['sshloginfile', 'slf'],
    ['tag-string', 'tagstring'],
    ['template', 'tmpl'],
    ['term-seq', 'termseq'],
    ['timeout'],
    ['tmpdir', 'tempdir'],
    ['total-jobs', 'totaljobs', 'total'],
    ['transfer-file', 'transferfile', 'transfer-files', 'transferfiles', 'tf'],
    ['trc'],
    ['trim'],
    ['use-compress-program', 'compress-program', 'usecompressprogram', 'compressprogram'],
    ['use-decompress-program', 'decompress-program', 'usedecompressprogram', 'decompressprogram'],
    ['work-dir', 'workdir', 'wd'],
    ['B'],
    ['E'],
    ['H'],
    ['I'],
    ['L'],
    ['U'],
    ['W'],
    ['_parset'],
    ['_test'],
  ].map((names) => option('required', ...names)),
  option('optional', 'eof', 'e'),
  option('optional', 'replace', 'i'),
  option('optional-number', 'max-lines', 'maxlines', 'l'),
  ...[
    ['xargs'],
    ['m'],
    ['X'],
    ['v'],
    ['verbose', 't'],
    ['T'],
    ['Y'],
    ['g'],
    ['_pipe-means-argfiles'],
    ['bar'],
    ['bg'],
    ['bug'],
    ['cat'],
    ['cleanup'],
    ['color', 'colour'],
    ['color-failed', 'colour-failed', 'colorfailed', 'colourfailed', 'color-fail', 'cf'].concat([
      'colour-fail',
      'colorfail',
      'colourfail',
    ]),
    ['compress'],
    ['controlmaster', 'M'],
    ['csv'],
    ['ctag'],
    ['ctrl-c', 'ctrlc'],
    ['dry-run', 'dryrun', 'dr'],
    ['embed'],
    ['eta'],
    ['exit', 'x'],
    ['fg'],
    ['fifo'],
    ['filter-hosts', 'filterhosts', 'filter-host'],
    ['gnu'],
    ['group'],
    ['help', 'h'],
    ['hgrp', 'hostgrp', 'hostgroup', 'hostgroups'],
    ['interactive', 'p'],
    ['keep-order', 'keeporder', 'k'],
    ['latest-line', 'latestline', 'll'],
    ['line-buffer', 'line-buffered', 'linebuffer', 'linebuffered', 'lb'],
    ['link', 'xapply'],
    ['max-line-length-allowed', 'maxlinelengthallowed'],
    ['no-ctrl-c', 'no-ctrlc', 'noctrlc'],
    ['no-keep-order', 'nokeeporder', 'nok', 'no-k'],
    ['no-run-if-empty', 'norunifempty', 'r'],
    ['nonall'],
    ['noswap'],
    ['null', '0'],
    ['number-of-cores', 'numberofcores'],
    ['number-of-cpus', 'numberofcpus'],
    ['number-of-sockets', 'numberofsockets'],
    ['number-of-threads', 'numberofthreads'],
    ['onall'],
    ['open-tty', 'o'],
    ['output-as-files', 'outputasfiles', 'files'],
    ['pipe', 'spreadstdin'],
    ['pipe-part', 'pipepart'],
    ['plain'],
    ['plus'],
    ['progress'],
    ['quote', 'q'],
    ['recordenv', 'record-env'],
    ['regexp', 'regex'],
    ['remove-rec-sep', 'removerecsep', 'rrs'],
    ['resume'],
    ['resume-failed', 'resumefailed'],
    ['retry-failed', 'retryfailed'],
    ['round-robin', 'roundrobin', 'round'],
    ['semaphore'],
    ['session'],
    ['shebang', 'hashbang'],
    ['shell-quote', 'shellquote', 'shell_quote'],
    ['show-limits', 'showlimits'],
    ['shuf'],
    ['silent'],
    ['skip-first-line', 'skipfirstline'],
    ['tag'],
    ['tee'],
    ['tmux'],
    ['tmux-pane', 'tmuxpane'],
    ['tollef'],
    ['transfer'],
    ['tty'],
    ['ungroup', 'u'],
    ['use-cores-instead-of-threads', 'usecoresinsteadofthreads'],
    ['use-cpus-instead-of-cores', 'usecpusinsteadofcores'],
    ['use-sockets-instead-of-threads', 'usesocketsinsteadofthreads'],
    ['version', 'V'],
    ['wait'],
    ['will-cite', 'willcite', 'nn', 'nonotice', 'no-notice'],
  ].map((names) => option('none', ...names)),
];

/** Options whose value is code parallel runs: a program (`--ssh CMD`) or Perl (`--filter`, `--rpl`). */
const CODE_VALUED = new Set([
  'ssh',
  'use-compress-program',
  'use-decompress-program',
  'filter',
  'rpl',
]);

const BY_NAME = new Map<string, ParallelOption>(
  OPTIONS.flatMap((entry) => entry.names.map((name) => [name, entry] as const)),
);
const LONG_NAMES = [...BY_NAME.keys()];

/** The option a `--name` names: exactly, or as the one option every name it prefixes belongs to. */
function longOption(name: string): ParallelOption | undefined {
  const exact = BY_NAME.get(name);
  if (exact !== undefined || name === '') return exact;
  const found = new Set(
    LONG_NAMES.filter((long) => long.startsWith(name)).map((long) => BY_NAME.get(long)),
  );
  return found.size === 1 ? [...found][0] : undefined;
}

const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

/** Whether an optional value is taken from the next word, as Getopt::Long decides. */
function takesNext(kind: ValueKind, next: string | undefined): boolean {
  if (next === undefined || kind === 'none') return false;
  if (kind === 'required') return true;
  if (kind === 'optional-number') return NUMBER.test(next);
  return next === '-' || !next.startsWith('-');
}

/** What parallel's options say. */
export interface ParallelOptions {
  /** The first word after the options. */
  readonly index: number;
  /** An option it does not have (or an ambiguous prefix): parallel refuses it, or a later one reads it otherwise. */
  readonly unknownOption: boolean;
  /** An option whose value is code it runs. */
  readonly runsCode: boolean;
  /** What an argument replaces in the command (`-I R`, `-i`, `--replace=R`); `{}` by default. */
  readonly braces: string;
}

/** Reads parallel's options from `words[from]` (see the file's comment). */
export function parallelOptions(
  words: readonly ShellWord[],
  from: number,
  isInputs: (text: string) => boolean,
): ParallelOptions {
  let index = from;
  let unknownOption = false;
  let runsCode = false;
  let braces = '{}';
  const took = (entry: ParallelOption, value: string | undefined) => {
    const own = entry.names[0]!;
    if (CODE_VALUED.has(own)) runsCode = true;
    if (own === 'I' || own === 'replace') braces = value || '{}';
  };
  while (index < words.length) {
    const text = words[index]!.text;
    if (text === '--') return { index: index + 1, unknownOption, runsCode, braces };
    if (!text.startsWith('-') || text === '-' || isInputs(text)) break;
    index++;
    if (text.startsWith('--')) {
      const equals = text.indexOf('=');
      const entry = longOption(text.slice(2, equals < 0 ? undefined : equals));
      if (entry === undefined) {
        unknownOption = true;
        continue;
      }
      if (equals >= 0) took(entry, text.slice(equals + 1));
      else if (takesNext(entry.value, words[index]?.text)) took(entry, words[index++]!.text);
      else took(entry, undefined);
      continue;
    }
    for (let at = 1; at < text.length; at++) {
      const entry = BY_NAME.get(text[at]!);
      if (entry === undefined) {
        unknownOption = true;
        break;
      }
      if (entry.value === 'none') {
        took(entry, undefined);
        continue;
      }
      const attached = text.slice(at + 1);
      if (attached !== '') took(entry, attached);
      else if (takesNext(entry.value, words[index]?.text)) took(entry, words[index++]!.text);
      else took(entry, undefined);
      break;
    }
  }
  return { index, unknownOption, runsCode, braces };
}
