import { gitContentReads } from './git-content-reads.js';
import { packedDirectories, unpackedDirectories } from './packed-directories.js';
import { programName } from './program-paths.js';
import { servedDirectories } from './served-directories.js';

/*
 * Programs that read a directory tree and, given no path, read the working directory:
 * `rg x`, `grep -r x`, `du`, `ls -R`, `find -name x` read `.` as `grep -r x .` does. The
 * shell-path reading (permissions/shell-paths.ts) adds that `.` to a command's words.
 * A program is listed only when it recurses by default or by a flag it was given, so a
 * plain `ls` or `echo` names nothing more than its words. A names-only lister (`du`, `ls -R`,
 * `find -name x` with no action that reads) is read by names-only-words.ts first, as a listing
 * of names; these readers read it only when that one does not.
 */

/** How one recursive reader's command line is read. */
interface RecursiveReader {
  /** Whether it recurses, given its options (names without dashes, `--name=value` as `name`). */
  readonly recurses: (options: ReadonlyMap<string, string>) => boolean;
  /** How many operands before the paths are something else (a search pattern). */
  readonly leading: (options: ReadonlyMap<string, string>) => number;
  /** Short options that take a value (`-e PATTERN`, `-A 3`). */
  readonly shortValues: string;
  /**
   * Long options written without `=` that take no value; any other long option is read
   * as taking the next word, so an unlisted one makes fewer operands and `.` read, not missed.
   */
  readonly longFlags: ReadonlySet<string>;
  /** Options after which the rest of the words are another command (`fd -x cat`). */
  readonly ends?: ReadonlySet<string>;
}

const always = () => true;
const none = () => 0;
const anyOf =
  (...names: string[]) =>
  (options: ReadonlyMap<string, string>) =>
    names.some((name) => options.has(name));
/** One pattern operand, none when a pattern option or a listing option gives it. */
const patternUnless =
  (...names: string[]) =>
  (options: ReadonlyMap<string, string>) =>
    names.some((name) => options.has(name)) ? 0 : 1;

const GREP_FLAGS = new Set([
  ...['recursive', 'dereference-recursive', 'ignore-case', 'no-ignore-case', 'line-number'],
  ...['files-with-matches', 'files-without-match', 'count', 'word-regexp', 'line-regexp'],
  ...['invert-match', 'only-matching', 'quiet', 'silent', 'no-messages', 'with-filename'],
  ...['no-filename', 'null', 'null-data', 'extended-regexp', 'fixed-strings', 'perl-regexp'],
  ...['basic-regexp', 'color', 'colour', 'text', 'byte-offset', 'initial-tab', 'line-buffered'],
]);

const GREP: RecursiveReader = {
  recurses: (options) =>
    ['r', 'R', 'recursive', 'dereference-recursive'].some((name) => options.has(name)) ||
    options.get('d') === 'recurse' ||
    options.get('directories') === 'recurse',
  leading: patternUnless('e', 'f', 'regexp', 'file'),
  shortValues: 'efmABCdD',
  longFlags: GREP_FLAGS,
};

const RIPGREP: RecursiveReader = {
  recurses: always,
  leading: patternUnless('e', 'f', 'regexp', 'file', 'files', 'type-list'),
  shortValues: 'ABCEefgjMmrTtd',
  longFlags: new Set([
    ...['hidden', 'no-ignore', 'files', 'files-with-matches', 'files-without-match', 'count'],
    ...['count-matches', 'ignore-case', 'smart-case', 'case-sensitive', 'fixed-strings'],
    ...['word-regexp', 'line-regexp', 'invert-match', 'only-matching', 'json', 'vimgrep'],
    ...['no-heading', 'heading', 'line-number', 'no-line-number', 'with-filename', 'follow'],
    ...['no-filename', 'multiline', 'pcre2', 'null', 'unrestricted', 'text', 'no-messages'],
    ...['quiet', 'stats', 'trim', 'column', 'no-config', 'sort-files', 'passthru', 'binary'],
    ...['search-zip', 'one-file-system', 'no-ignore-vcs', 'no-require-git', 'pretty', 'crlf'],
    ...['type-list', 'debug', 'no-ignore-dot', 'no-ignore-parent', 'no-ignore-global'],
  ]),
};

const SILVER_SEARCHER: RecursiveReader = {
  recurses: always,
  leading: patternUnless('g', 'list-file-types'),
  shortValues: 'ABCGgmWp',
  longFlags: new Set([
    ...['all-text', 'all-types', 'case-sensitive', 'count', 'files-with-matches', 'follow'],
    ...['hidden', 'ignore-case', 'literal', 'nocolor', 'nogroup', 'noheading', 'silent'],
    ...['smart-case', 'unrestricted', 'vimgrep', 'word-regexp', 'list-file-types', 'color'],
    ...['skip-vcs-ignores', 'search-zip', 'numbers', 'nonumbers', 'filename', 'nofilename'],
  ]),
};

const ACK: RecursiveReader = {
  recurses: always,
  leading: patternUnless('f', 'g', 'match', 'help-types'),
  shortValues: 'ABCmg',
  longFlags: new Set([
    ...['ignore-case', 'smart-case', 'word-regexp', 'literal', 'invert-match', 'count'],
    ...['files-with-matches', 'files-without-matches', 'with-filename', 'no-filename'],
    ...['column', 'nocolor', 'color', 'heading', 'noheading', 'break', 'nobreak', 'follow'],
    ...['recurse', 'sort-files', 'nopager', 'help-types', 'nofilter', 'filter'],
  ]),
};

const DISK_USAGE: RecursiveReader = {
  recurses: always,
  leading: none,
  shortValues: 'BdtX',
  longFlags: new Set([
    ...['all', 'apparent-size', 'bytes', 'total', 'dereference-args', 'human-readable'],
    ...['inodes', 'dereference', 'count-links', 'no-dereference', 'null', 'separate-dirs'],
    ...['si', 'summarize', 'one-file-system', 'time'],
  ]),
};

const LIST: RecursiveReader = {
  recurses: anyOf('R', 'recursive'),
  leading: none,
  shortValues: 'ITw',
  longFlags: new Set([
    ...['all', 'almost-all', 'author', 'escape', 'directory', 'classify', 'file-type'],
    ...['human-readable', 'si', 'inode', 'numeric-uid-gid', 'literal', 'hide-control-chars'],
    ...['show-control-chars', 'quote-name', 'recursive', 'reverse', 'size', 'context', 'color'],
    ...['group-directories-first', 'full-time', 'dereference', 'ignore-backups', 'zero'],
    ...['no-group', 'dired', 'hyperlink'],
  ]),
};

const TREE: RecursiveReader = {
  recurses: always,
  leading: none,
  shortValues: 'LPIoHT',
  longFlags: new Set(['noreport', 'dirsfirst', 'filesfirst', 'prune', 'du', 'inodes', 'device']),
};

const FD: RecursiveReader = {
  // `--search-path` gives the paths as option values, which are read as words already.
  recurses: (options) => !options.has('search-path'),
  leading: () => 1,
  shortValues: 'edtEcxXjSo',
  longFlags: new Set([
    ...['hidden', 'no-ignore', 'no-ignore-vcs', 'unrestricted', 'case-sensitive'],
    ...['ignore-case', 'glob', 'regex', 'fixed-strings', 'absolute-path', 'list-details'],
    ...['follow', 'full-path', 'print0', 'prune', 'one-file-system', 'show-errors'],
  ]),
  ends: new Set(['x', 'X', 'exec', 'exec-batch']),
};

/** fd's long options that take no value (names-only-words.ts reads fd's operands by them). */
export const FD_LONG_FLAGS = FD.longFlags;

const CTAGS: RecursiveReader = {
  recurses: anyOf('R', 'recurse'),
  leading: none,
  shortValues: 'fLo',
  longFlags: new Set(['recurse', 'append', 'totals']),
};

const READERS = new Map<string, RecursiveReader>([
  ['grep', GREP],
  ['egrep', GREP],
  ['fgrep', GREP],
  ['rgrep', { ...GREP, recurses: always }],
  ['rg', RIPGREP],
  ['ripgrep', RIPGREP],
  ['ag', SILVER_SEARCHER],
  ['ack', ACK],
  ['ack-grep', ACK],
  ['du', DISK_USAGE],
  ['ls', LIST],
  ['tree', TREE],
  ['fd', FD],
  ['fdfind', FD],
  ['ctags', CTAGS],
]);

interface ReadOptions {
  readonly options: Map<string, string>;
  readonly operands: string[];
  /** Whether a `--` was passed (a later word is an operand however it starts). */
  readonly separated: boolean;
}

/** The options (name to value, `''` for a flag) and operands of a reader's arguments. */
function readArguments(args: readonly string[], reader: RecursiveReader): ReadOptions {
  const options = new Map<string, string>();
  const operands: string[] = [];
  let separated = false;
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    if (separated || arg === '-' || !arg.startsWith('-')) {
      operands.push(arg);
      continue;
    }
    if (arg === '--') {
      separated = true;
      continue;
    }
    if (arg.startsWith('--')) {
      const equals = arg.indexOf('=');
      const name = equals < 0 ? arg.slice(2) : arg.slice(2, equals);
      const takes = equals < 0 && !reader.longFlags.has(name) && !reader.ends?.has(name);
      options.set(name, equals >= 0 ? arg.slice(equals + 1) : takes ? (args[++index] ?? '') : '');
      if (reader.ends?.has(name)) break;
      continue;
    }
    for (let at = 1; at < arg.length; at++) {
      const letter = arg[at]!;
      if (reader.ends?.has(letter)) {
        options.set(letter, '');
        return { options, operands, separated };
      }
      if (!reader.shortValues.includes(letter)) {
        options.set(letter, '');
        continue;
      }
      options.set(letter, at + 1 < arg.length ? arg.slice(at + 1) : (args[++index] ?? ''));
      break;
    }
  }
  return { options, operands, separated };
}

/** `find`'s starting points (`find src lib -name x`): an empty list walks `.`. */
function findStarts(args: readonly string[]): string[] {
  let index = 0;
  // Its own options come first: -H, -L, -P, -D debugopts, -Olevel.
  while (index < args.length && /^-([HLP]|O\d*|D)$/.test(args[index]!)) {
    index += args[index] === '-D' ? 2 : 1;
  }
  const starts: string[] = [];
  for (; index < args.length; index++) {
    const arg = args[index]!;
    if (arg.startsWith('-') || arg === '(' || arg === '!') break;
    starts.push(arg);
  }
  return starts;
}

/** Copiers and archivers that read a directory operand through when recursing. */
const TREE_COPIERS = new Map<string, (args: readonly string[]) => boolean>([
  ['cp', (args) => args.some((arg) => /^-[a-zA-Z]*[rRa]/.test(arg) || arg === '--recursive')],
  ['scp', (args) => args.some((arg) => /^-[a-zA-Z]*r/.test(arg))],
  ['rsync', () => true],
  ['tar', () => true],
  ['zip', (args) => args.some((arg) => /^-[a-zA-Z]*r/.test(arg) || arg === '--recurse-paths')],
  ['7z', () => true],
  ['diff', (args) => args.some((arg) => /^-[a-zA-Z]*r/.test(arg) || arg === '--recursive')],
]);

/**
 * The directories a command reads recursively, named or not (`.` of `rg x`, `grep -r x`,
 * `du -sh`, `ls -R`, `find -name x`, `git grep x`, `/` of `git diff` (git-content-reads.ts); `src` of `grep -r x src`, `find src`, `cp
 * -r src d`): a rule reads each as a directory whose whole tree is read, so one that may
 * hold a guarded path asks. Empty for any other command. `words` start with the program.
 */
export function recursiveReads(words: readonly string[]): string[] {
  const first = words[0];
  if (first === undefined) return [];
  const program = programName(first);
  const args = words.slice(1);
  if (program === 'find') {
    const starts = findStarts(args);
    return starts.length === 0 ? ['.'] : starts;
  }
  if (program === 'git') return gitContentReads(args);
  const served =
    servedDirectories(program, args) ??
    packedDirectories(program, args) ??
    unpackedDirectories(program, args);
  if (served !== null) return served;
  const copier = TREE_COPIERS.get(program);
  // Every operand, the destination too: which is which depends on options not read here.
  if (copier !== undefined) return copier(args) ? args.filter((arg) => !arg.startsWith('-')) : [];
  const reader = READERS.get(program);
  if (reader === undefined) return [];
  const { options, operands } = readArguments(args, reader);
  if (!reader.recurses(options)) return [];
  const leading = reader.leading(options);
  return operands.length <= leading ? ['.'] : operands.slice(leading);
}
