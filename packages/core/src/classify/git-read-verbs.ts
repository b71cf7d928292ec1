import { namesLongOption } from './flags.js';
import type { ActionTag } from './tags.js';

/** The options a read-only git verb takes: its short letters and its long names. */
interface VerbOptions {
  readonly short: string;
  readonly long: readonly string[];
}

/**
 * git verbs that only read, with every option each takes in git 2.39 (`git
 * VERB -h`) that neither writes nor runs a program. Options that take a value
 * (`--format FMT`, `--sort KEY`) need no mark: their value is a word without
 * a dash, read as an operand. Left out on purpose: `fsck --lost-found`
 * (writes `.git/lost-found`); any option not listed, a `--no-` form or a
 * value starting with a dash keeps git's cautious `write`.
 */
const READ_VERB_OPTIONS = new Map<string, VerbOptions>(
  Object.entries({
    'check-ignore': {
      short: 'qvzn',
      long: ['--quiet', '--verbose', '--stdin', '--non-matching', '--no-index'],
    },
    'check-attr': { short: 'az', long: ['--all', '--cached', '--stdin'] },
    'check-mailmap': { short: '', long: ['--stdin'] },
    cherry: { short: 'v', long: ['--abbrev', '--verbose'] },
    'count-objects': { short: 'vH', long: ['--verbose', '--human-readable'] },
    'for-each-ref': {
      short: 'sp',
      long: [
        ...['--shell', '--perl', '--python', '--tcl', '--count', '--format', '--color', '--sort'],
        ...['--points-at', '--merged', '--no-merged', '--contains', '--no-contains'],
        '--ignore-case',
      ],
    },
    fsck: {
      short: 'v',
      long: [
        ...['--verbose', '--unreachable', '--dangling', '--no-dangling', '--tags', '--root'],
        ...['--cache', '--reflogs', '--no-reflogs', '--full', '--no-full', '--strict'],
        ...['--connectivity-only', '--progress', '--no-progress', '--name-objects'],
      ],
    },
    'merge-base': {
      short: 'a',
      long: ['--all', '--octopus', '--independent', '--is-ancestor', '--fork-point'],
    },
    'name-rev': {
      short: '',
      long: [
        ...['--name-only', '--tags', '--refs', '--exclude', '--all', '--stdin'],
        ...['--annotate-stdin', '--undefined', '--no-undefined', '--always'],
      ],
    },
    'show-branch': {
      short: 'arg',
      long: [
        ...['--all', '--remotes', '--color', '--no-color', '--more', '--list', '--no-name'],
        ...['--current', '--sha1-name', '--merge-base', '--independent', '--topo-order'],
        ...['--topics', '--sparse', '--date-order', '--reflog'],
      ],
    },
    'show-ref': {
      short: 'dsq',
      long: [
        ...['--tags', '--heads', '--verify', '--head', '--dereference', '--hash', '--abbrev'],
        ...['--quiet', '--exclude-existing'],
      ],
    },
    var: { short: 'l', long: [] },
  }),
);

/** Whether one option word is among a verb's read-only options (a long one may be abbreviated). */
function readOption(arg: string, options: VerbOptions): boolean {
  if (arg.startsWith('--')) return options.long.some((name) => namesLongOption(arg, name));
  return (
    /^-[a-zA-Z]+$/.test(arg) && [...arg.slice(1)].every((letter) => options.short.includes(letter))
  );
}

/**
 * Whether `git VERB ARGS` only reads: the verb is one of the read-only verbs
 * above and every option before `--` is one it lists. False for any other
 * verb, so the caller's reading stands.
 */
export function gitReadsOnly(verb: string, rest: readonly string[]): boolean {
  const options = READ_VERB_OPTIONS.get(verb);
  if (options === undefined) return false;
  for (const arg of rest) {
    if (arg === '--') return true;
    if (arg.startsWith('-') && arg !== '-' && !readOption(arg, options)) return false;
  }
  return true;
}

/**
 * `git stash list` and `git stash show` print, as `git log -g` and `git diff`
 * do (their options included; `--output=FILE` writes as theirs does). Any
 * other stash subcommand, and `git stash` alone, changes the stash or the tree.
 */
export function gitStashReads(rest: readonly string[]): boolean {
  return rest[0] === 'list' || rest[0] === 'show';
}

/** The words of `rest` that are not options; undefined when an option is not one of `known`. */
function wordsAmong(rest: readonly string[], known: readonly string[]): string[] | undefined {
  const words: string[] = [];
  for (const arg of rest) {
    if (!arg.startsWith('-')) words.push(arg);
    else if (!known.includes(arg)) return undefined;
  }
  return words;
}

/**
 * The reading of a git verb whose subcommand only prints: `git remote` (alone,
 * `-v`, `get-url`), `git remote show` (which asks the remote, `network`,
 * unless `-n`), `git submodule` (alone or `status`), `git notes` (alone,
 * `list`, `show`) and `git sparse-checkout list`. Null for any other
 * subcommand or an option not listed, so the caller's `write` stands.
 */
export function gitSubcommandReads(verb: string, rest: readonly string[]): ActionTag[] | null {
  const known: Record<string, readonly string[]> = {
    remote: ['-v', '--verbose', '-n', '--push', '--all'],
    submodule: ['-q', '--quiet', '--cached', '--recursive'],
    notes: [],
    'sparse-checkout': [],
  };
  const options = known[verb];
  if (options === undefined) return null;
  const words = wordsAmong(rest, options);
  if (words === undefined) return null;
  const [sub] = words;
  if (verb === 'remote') {
    if (sub === undefined || sub === 'get-url') return ['read'];
    if (sub === 'show') return rest.includes('-n') ? ['read'] : ['read', 'network'];
    return null;
  }
  if (verb === 'submodule' && (sub === undefined || sub === 'status')) return ['read'];
  if (verb === 'notes' && (sub === undefined || sub === 'list' || sub === 'show')) return ['read'];
  if (verb === 'sparse-checkout' && sub === 'list') return ['read'];
  return null;
}
