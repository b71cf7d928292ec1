import { hasFlag, namesLongOption } from './flags.js';
import type { ShellWord } from './lexed-line.js';
import { globMayGive, isGlobName } from './program-globs.js';
import { FD_LONG_FLAGS } from './recursive-reads.js';

/*
 * Commands given a directory that print or open no file's content of it: listers that print
 * names (`find . -name "*.ts"`, `tree`, `du -sh .`, `ls -R`), read as Glob's listing is, and
 * known builders, linters, test runners and editors (`tsc -p .`, `eslint .`, `cmake ..`,
 * `code .`), which read the directory given as they read the one they run in with no word.
 * Their words name a guarded path only when they are one (`find secrets`, `eslint .env`); a
 * builder's word leaving the project root is read as any other (permissions/shell-paths.ts), a
 * lister's still names only (`tree ..`). The list is
 * explicit: an unknown program, or a known one with an option that prints, writes or runs
 * what it finds (`find -exec`, `prettier --write`, `eslint -f json`), reads the words as before.
 */

/** How a names-only command's words are read. */
export interface NamesOnlyWords {
  /** The indexes of words read only as the paths they name. */
  readonly named: readonly number[];
  /** The indexes of words that are patterns over names, never paths (`find -name .env`). */
  readonly patterns: readonly number[];
  /** Whether the command lists the working directory given no path (`find -name x`, `tree`). */
  readonly listsHere: boolean;
  /** A lister's (`tree`, `find -name x`): it prints names only, even of a directory outside the project. */
  readonly lister?: true;
}

/** find's actions that run, print content, write or remove (`-fprint FILE` writes the list). */
const FIND_CONTENT_ACTIONS = new Set([
  ...['-exec', '-execdir', '-ok', '-okdir', '-delete', '-files0-from'],
  ...['-fprint', '-fprint0', '-fprintf', '-fls'],
]);
/** find's tests whose value is a pattern over names. */
const FIND_PATTERN_TESTS = new Set([
  ...['-name', '-iname', '-path', '-ipath', '-wholename', '-iwholename'],
  ...['-regex', '-iregex', '-lname', '-ilname'],
]);

function find(words: readonly string[]): NamesOnlyWords | undefined {
  if (words.some((word) => FIND_CONTENT_ACTIONS.has(word))) return undefined;
  let index = 1;
  while (index < words.length && /^-([HLP]|O\d*|D)$/.test(words[index]!)) {
    index += words[index] === '-D' ? 2 : 1;
  }
  const named: number[] = [];
  for (; index < words.length; index++) {
    const word = words[index]!;
    if (word.startsWith('-') || word === '(' || word === '!') break;
    named.push(index);
  }
  const patterns: number[] = [];
  for (; index < words.length; index++) {
    if (FIND_PATTERN_TESTS.has(words[index]!)) patterns.push(++index);
  }
  return { named, patterns, listsHere: named.length === 0 };
}

/** A lister's operands: its words but options and the values its short options take. */
function operands(words: readonly string[], shortValues: string): NamesOnlyWords {
  const named: number[] = [];
  for (let index = 1; index < words.length; index++) {
    const word = words[index]!;
    if (!word.startsWith('-') || word === '-') named.push(index);
    else if (/^-[a-zA-Z]+$/.test(word) && shortValues.includes(word.at(-1)!)) index++;
  }
  return { named, patterns: [], listsHere: named.length === 0 };
}

/**
 * fd's pattern (a regular expression over names) and the paths after it, unless it runs a
 * command on what it finds (`-x`, `-X`); a long option's value is read as any word.
 */
function fd(words: readonly string[]): NamesOnlyWords | undefined {
  if (hasFlag(words.slice(1), '-x', '-X', '--exec', '--exec-batch')) return undefined;
  const found: number[] = [];
  let separated = false;
  for (let index = 1; index < words.length; index++) {
    const word = words[index]!;
    if (separated || !word.startsWith('-') || word === '-') found.push(index);
    else if (word === '--') separated = true;
    else if (word.startsWith('--')) {
      if (!word.includes('=') && !FD_LONG_FLAGS.has(word.slice(2))) index++;
    } else if ('edtEcjSo'.includes(word.at(-1)!)) index++;
  }
  const [pattern, ...named] = found;
  return { named, patterns: pattern === undefined ? [] : [pattern], listsHere: named.length === 0 };
}

/**
 * Options that make a lister read a file's content (`tree --fromfile`, `du --files0-from`);
 * `tree --info` prints the comments of every `.info` file it finds.
 */
function readsListFile(words: readonly string[]): boolean {
  const options = ['--fromfile', '--files0-from', '--exclude-from', '--infofile'];
  return words.some((word) => options.some((option) => namesLongOption(word, option)));
}

/** Listers: the indexes of their words naming what they list. */
const LISTERS = new Map<string, (words: readonly string[]) => NamesOnlyWords | undefined>([
  ['find', find],
  ['fd', fd],
  ['fdfind', fd],
  // `tree -R` writes `00Tree.html` into every directory it lists.
  [
    'tree',
    (words) =>
      readsListFile(words) || hasFlag(words.slice(1), '-R') ? undefined : operands(words, 'LPIoHT'),
  ],
  ['du', (words) => (readsListFile(words) ? undefined : operands(words, 'BdtX'))],
  ['ls', (words) => operands(words, 'ITw')],
]);

/** Options after which a builder prints or writes the files it reads. */
const PRINTING_OPTIONS: Record<string, readonly string[]> = {
  eslint: ['-f', '--format', '-o', '--output-file', '--fix', '--fix-dry-run', '--stdin'],
};

/** Builders given a directory: whether these words keep to their names-only reading. */
const BUILDERS = new Map<string, (args: readonly string[]) => boolean>([
  ['tsc', () => true],
  ['eslint', (args) => !hasFlag(args, ...PRINTING_OPTIONS.eslint!)],
  // `prettier .` prints every file formatted and `--write` rewrites them: only a check lists names.
  [
    'prettier',
    (args) =>
      hasFlag(args, '-c', '--check', '-l', '--list-different') && !hasFlag(args, '-w', '--write'),
  ],
  ['pytest', () => true],
  ['py.test', () => true],
  ['jest', () => true],
  ['vitest', () => true],
  // `-exec`, `-toolexec` and `-vettool` name a program go runs on what it builds.
  [
    'go',
    (args) =>
      ['build', 'vet', 'test'].includes(args[0] ?? '') &&
      !args.some((arg) => /^--?(exec|toolexec|vettool)(=|$)/.test(arg)),
  ],
  ['cargo', (args) => ['build', 'check', 'test', 'clippy'].includes(args[0] ?? '')],
  // `cmake -E cat F`, `-E copy_directory . /tmp/x` and `-E tar` print or copy what they are given.
  ['cmake', (args) => !args.some((arg) => arg === '-E' || arg.startsWith('-E'))],
  ['make', () => true],
  ['code', () => true],
]);

/**
 * Whether a word may become another option once the shell expands it (`X=-exec; find . $X cat
 * {} +`, `find . -e* cat {} +` beside a file named `-exec`): find's given its content actions,
 * any other program's any option.
 */
function mayBecomeOption(program: string, word: ShellWord): boolean {
  if (word.dynamic || /[$`]/.test(word.text)) return true;
  if (!isGlobName(word.text)) return false;
  return globMayGive(word.text, program === 'find' ? [...FIND_CONTENT_ACTIONS] : []);
}

/**
 * How a names-only command reads its words (`words` start with its program name as the rule
 * reads it), or undefined for any other command, whose words are read as before: one whose
 * words may expand into an option is read so too.
 */
export function namesOnlyWords(
  program: string,
  shellWords: readonly ShellWord[],
): NamesOnlyWords | undefined {
  if (shellWords.slice(1).some((word) => mayBecomeOption(program, word))) return undefined;
  const words = shellWords.map((word) => word.text);
  const lister = LISTERS.get(program);
  const listed = lister?.(words);
  if (listed !== undefined) return { ...listed, lister: true };
  if (lister !== undefined) return undefined;
  // `python -m pytest .` runs pytest.
  const module = /^python[\d.]*$/.test(program) && words[1] === '-m' ? 2 : 0;
  const builder = BUILDERS.get(module === 0 ? program : (words[2] ?? ''));
  if (builder === undefined || !builder(words.slice(module + 1))) return undefined;
  return { named: [...words.keys()].slice(module + 1), patterns: [], listsHere: false };
}
