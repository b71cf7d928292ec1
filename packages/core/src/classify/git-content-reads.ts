import { namesLongOption } from './flags.js';
import { aliasGiven, GIT_COMMANDS, GIT_VALUED } from './git-tags.js';

/*
 * What a git command reads of the files it tracks and prints or copies out: the content of
 * every tracked file under its pathspecs, or of the whole repository given none (`git diff`,
 * `git log -p`, `git show HEAD`, `git format-patch -1 --stdout`, `git bundle create b --all`).
 * The shell-path reading (permissions/shell-paths.ts) reads each as a directory read through,
 * so a deny or an ask over a tracked path asks; names-only output (`git status`, `git log`,
 * `git diff --stat`) reads nothing here.
 */

/** The whole repository: its top may lie above the working directory (`git diff` in `docs/`). */
const WHOLE_REPOSITORY = '/';

/** Verbs that print a patch unless told to print names only (`--stat`, `--name-only`, `-s`). */
const PATCH_BY_DEFAULT = new Set(['diff', 'show', 'difftool']);
/** Verbs that print a patch only when asked for one (`git log -p`). */
const PATCH_ON_REQUEST = new Set([
  ...['log', 'whatchanged', 'reflog', 'diff-tree', 'diff-index', 'diff-files'],
]);
/** Verbs whose output is patches whatever their options (`--stdout` or files in the directory). */
const ALWAYS_PATCHES = new Set(['format-patch', 'range-diff']);
/** Verbs that show each hunk of their paths under `-p` or `-i` (`yes | git add -p` prints them all). */
const INTERACTIVE = new Set(['add', 'commit', 'checkout', 'reset', 'restore', 'stash', 'stage']);
/** Verbs whose bare operands are always paths, never revisions. */
const PATH_OPERANDS = new Set(['add', 'stage', 'commit', 'status', 'clean']);

/**
 * Whether a verb takes untracked files out of the work tree under its pathspecs: `git clean`
 * but a dry run deletes them (ignored ones too with `-x`), `git stash -u` or `-a` moves them
 * into a stash. What it takes is read as what it reads: a `.env` it may remove asks as
 * `rm -rf .` does.
 */
function takesUntracked(verb: string, rest: readonly string[]): boolean {
  const options = rest.filter((arg) => arg.startsWith('-'));
  if (verb === 'clean')
    return !options.some((arg) => /^-[a-zA-Z]*n/.test(arg) || arg === '--dry-run');
  if (
    verb !== 'stash' ||
    !['push', 'save', undefined].includes(rest.find((arg) => !arg.startsWith('-')))
  ) {
    return false;
  }
  return options.some(
    (arg) =>
      /^-[a-zA-Z]*[ua]/.test(arg) || namesLongOption(arg, '--include-untracked') || arg === '--all',
  );
}

/** Verbs that write tracked files into the work tree. */
const WORK_TREE_WRITERS = new Set([
  ...['checkout', 'switch', 'reset', 'restore', 'stash', 'merge', 'pull', 'rebase'],
  ...['cherry-pick', 'revert', 'read-tree', 'checkout-index', 'am', 'apply', 'clone'],
]);

/** Verbs that print or copy out tracked content whatever their operands (a hash may name any blob). */
const COPIES_OUT = new Set(['archive', 'fast-export', 'pack-objects', 'unpack-file', 'merge-tree']);

/** Options that print names, counts or hashes instead of a patch (`git diff --stat`). */
const NAMES_ONLY =
  /^(-s|-X.*|--(no-patch|quiet|raw|summary|numstat|shortstat|name-only|name-status|compact-summary)|--(stat|dirstat|cumulative|dirstat-by-file)(=.*)?)$/;

/** Long options that print file content: a patch, a word diff, lines a search picks. */
const PATCH_LONG = [
  ...['--patch', '--patch-with-stat', '--patch-with-raw', '--unified', '--word-diff'],
  ...['--word-diff-regex', '--color-words', '--binary', '--cc', '--dd', '--combined-all-paths'],
  ...['--remerge-diff', '--diff-merges', '--function-context', '--check', '--pickaxe-regex'],
];
/** Options of their own that are also the start of one above (`--color`, `--color-words`). */
const NOT_ABBREVIATED = new Set(['--color', '--text', '--full', '--no-color']);

/**
 * Whether one option prints file content: a patch (`-p`, `-u`, `-U3`, `--cc`, `-m` since
 * git 2.31), a line range's history (`-L1,9:f`), or commits a search of their content picks
 * (`-S`, `-G`: an oracle of what a file holds). A long option may be abbreviated.
 */
function printsContent(arg: string): boolean {
  if (arg.startsWith('--')) {
    if (NOT_ABBREVIATED.has(arg.split('=')[0]!)) return false;
    return PATCH_LONG.some((name) => namesLongOption(arg, name));
  }
  if (/^-[LSGU]/.test(arg)) return true;
  return /^-[a-zA-Z]+$/.test(arg) && /[pucmW]/.test(arg.slice(1));
}

/**
 * Whether a bare operand cannot be a revision, so git takes it as a path: `.`, `./x`, `../x`,
 * a word ending in `/`, one with a segment starting with `.` (`.github/x`) or a wildcard
 * (`src/*.ts`) are no ref names. Any other word (`src/a.ts`, `HEAD~1`, `feature/login`) may
 * name a revision, whose tree holds every tracked path.
 */
function surelyPath(word: string): boolean {
  if (/[~^:@{]/.test(word)) return false;
  if (word === '.' || word === '..' || /^\.\.?\//.test(word) || word.endsWith('/')) return true;
  return !word.includes('..') && (/(^|\/)\.[^./]/.test(word) || /[*?[]/.test(word));
}

/**
 * A pathspec as the directory it limits a read to: an exclusion (`:!secrets`,
 * `:(exclude)x`) limits nothing (null); any other magic (`:/`, `:(top)`, `:(glob)`,
 * `:(icase)`) may name the whole repository; a wildcard matches across `/` (`*.key` is
 * `secrets/a.key` too), so it reads the directory before its first one.
 */
function pathspecDirectory(spec: string): string | null {
  if (spec.startsWith(':')) {
    if (/^:(!|\^|\([^)]*\bexclude\b)/.test(spec)) return null;
    return WHOLE_REPOSITORY;
  }
  const wild = spec.search(/[*?[\\]/);
  if (wild < 0) return spec === '' ? '.' : spec;
  return spec.slice(0, spec.lastIndexOf('/', wild) + 1) || '.';
}

/**
 * The paths a content read is limited to: those after `--`; without one the bare operands
 * when one of them cannot be a revision (or the verb takes only paths); the whole repository
 * when none limits it. Each read in git's own directory (`prefix`, from `-C`).
 */
function pathspecs(rest: readonly string[], options: { verb: string; prefix: string }): string[] {
  const separator = rest.indexOf('--');
  const operands =
    separator >= 0
      ? rest.slice(separator + 1)
      : rest.filter((arg) => !arg.startsWith('-') || arg === '-');
  const limits =
    separator >= 0 ||
    PATH_OPERANDS.has(options.verb) ||
    rest.includes('--no-index') ||
    operands.some(surelyPath);
  const directories = limits ? operands.map(pathspecDirectory).filter((spec) => spec !== null) : [];
  if (directories.length === 0) return [WHOLE_REPOSITORY];
  if (directories.includes(WHOLE_REPOSITORY)) return [WHOLE_REPOSITORY];
  return directories.map((spec) =>
    spec.startsWith('/') || options.prefix === '' ? spec : `${options.prefix}/${spec}`,
  );
}

/**
 * Whether `git show` is given only `REV:PATH` objects (`git show HEAD:package.json`): it prints
 * those blobs or lists those trees, whose paths the words already name, and no commit's patch.
 */
function showsOnlyNamedObjects(rest: readonly string[]): boolean {
  if (rest.includes('--')) return false;
  const operands = rest.filter((arg) => !arg.startsWith('-'));
  return (
    operands.length > 0 && operands.every((arg) => /^[^:]*:/.test(arg) && !arg.startsWith(':/'))
  );
}

/** Whether a verb's options, before any `--`, print the content of what it reads. */
function printsPatch(verb: string, rest: readonly string[]): boolean {
  const end = rest.indexOf('--');
  const options = (end < 0 ? rest : rest.slice(0, end)).filter((arg) => arg.startsWith('-'));
  if (options.some(printsContent)) return true;
  if (PATCH_ON_REQUEST.has(verb)) return false;
  // `git show <object>` of a blob prints it whatever the options: a hash may name one.
  if (verb === 'show' && rest.some((arg) => /^[0-9a-f]{4,64}$/i.test(arg))) return true;
  return !options.some((arg) => NAMES_ONLY.test(arg));
}

/**
 * The indexes among git's words (the first its program) of the directories `-C` runs it in
 * (`/repo` of `git -C /repo status`): git works there, it reads no file of it by that word.
 */
export function gitWorkingDirectories(words: readonly string[]): number[] {
  const found: number[] = [];
  for (let at = 1; at < words.length && words[at]!.startsWith('-'); at++) {
    const arg = words[at]!;
    if (arg === '-C') found.push(at + 1);
    if (arg === '-c' || GIT_VALUED.has(arg)) at++;
  }
  return found;
}

/** Verbs whose `-m MESSAGE` is text they record (`git revert -m 1` takes a parent number). */
const MESSAGE_VERBS = new Set(['commit', 'tag', 'merge', 'notes', 'stash']);

/**
 * The indexes among git's words (the first its program) holding a message a verb records
 * (`-m "$(cat <<'EOF' ...)"` of `git commit`, `-amfix`, `--message=x`): text, never a path
 * (the commands inside it are walked all the same).
 */
export function gitMessageWords(words: readonly string[]): number[] {
  const { at } = globalOptions(words.slice(1));
  if (!MESSAGE_VERBS.has(words[at + 1] ?? '')) return [];
  const found: number[] = [];
  for (let index = at + 2; index < words.length; index++) {
    const word = words[index]!;
    if (word === '--') break;
    if (/^-[a-zA-Z]*m$/.test(word) || word === '--message') found.push(++index);
    else if (/^-[a-zA-Z]*m./.test(word) || word.startsWith('--message=')) found.push(index);
  }
  return found;
}

/** git's global options: the verb's index and the directory `-C` moves it to (null: unknown). */
function globalOptions(args: readonly string[]): { at: number; prefix: string | null } {
  let prefix: string | null = '';
  let at = 0;
  for (; at < args.length && args[at]!.startsWith('-'); at++) {
    const arg = args[at]!;
    if (arg === '-C') {
      const directory = args[++at] ?? '';
      if (/[$`~]/.test(directory)) prefix = null;
      else if (prefix !== null)
        prefix = directory.startsWith('/') || prefix === '' ? directory : `${prefix}/${directory}`;
    } else if (arg.startsWith('--work-tree') || arg.startsWith('--git-dir')) {
      // Another work tree or repository: where its paths lie is not read here.
      prefix = null;
      if (!arg.includes('=')) at++;
    } else if (arg === '-c' || GIT_VALUED.has(arg)) at++;
  }
  return { at, prefix };
}

/**
 * The paths a git command reads through and prints or copies out: `.` of `git grep x` (the
 * working directory; paths after `--` limit it), the pathspecs of a command that prints
 * content (`git diff -- src`, `git log -p -- src`), the whole repository (`/`) for one given
 * no pathspec (`git diff`, `git show HEAD`, `git stash show -p`), one that copies it all out
 * (`git bundle create`, `git fast-export`, `git archive`, `git worktree add`), the pathspecs of
 * one that takes untracked files away (`git clean -f`, `git stash -u`) and a verb git does not
 * have (an alias may print anything). Empty for a command that prints names only
 * (`git status`, `git log --stat`, `git diff --name-only`). `args` follow the `git` word.
 */
export function gitContentReads(args: readonly string[]): string[] {
  const { at, prefix } = globalOptions(args);
  const verb = args[at];
  if (verb === undefined) return [];
  // Another work tree (`--work-tree=/tmp/w reset --hard`, or the directory `--git-dir` runs in)
  // receives the tracked files a verb writes: it copies them out.
  if (prefix === null && WORK_TREE_WRITERS.has(verb)) return [WHOLE_REPOSITORY];
  const reads = verbReads(verb, args, { at, prefix: prefix ?? '' });
  // In a directory or work tree the words do not place, any path it reads may be anywhere.
  return prefix === null && reads.length > 0 ? [WHOLE_REPOSITORY] : reads;
}

/** {@link gitContentReads} of one verb, its pathspecs read in git's directory `prefix`. */
function verbReads(
  verb: string,
  args: readonly string[],
  { at, prefix: given }: { at: number; prefix: string },
): string[] {
  const rest = args.slice(at + 1);
  const read = (list: readonly string[]) => pathspecs(list, { verb, prefix: given });
  if (verb === 'grep') {
    const separator = rest.indexOf('--');
    const paths = separator < 0 ? [] : read(rest.slice(separator));
    return paths.length === 0 || separator === rest.length - 1 ? [given || '.'] : paths;
  }
  if (ALWAYS_PATCHES.has(verb)) return read(rest.includes('--') ? rest : []);
  if (verb === 'show' && showsOnlyNamedObjects(rest)) return [];
  if (PATCH_BY_DEFAULT.has(verb) || PATCH_ON_REQUEST.has(verb)) {
    return printsPatch(verb, rest) ? read(rest) : [];
  }
  if (takesUntracked(verb, rest)) return read(rest);
  if (verb === 'stash' && rest[0] === 'show') {
    // `stash.showPatch` (a user's configuration) makes a bare `git stash show` print a patch.
    return printsPatch('diff', rest.slice(1)) ? [WHOLE_REPOSITORY] : [];
  }
  if (verb === 'stash' && rest[0] === 'list') {
    return printsPatch('log', rest.slice(1)) ? [WHOLE_REPOSITORY] : [];
  }
  if (verb === 'status') {
    return rest.some((arg) => /^-v+$|^--verbose$/.test(arg)) ? read(rest) : [];
  }
  if (INTERACTIVE.has(verb)) {
    // `-i` is `--interactive` for add only (`commit -i` is `--include`).
    const letters = verb === 'add' ? /^-[a-zA-Z]*[pi][a-zA-Z]*$/ : /^-[a-zA-Z]*p[a-zA-Z]*$/;
    const interactive = rest.some(
      (arg) => letters.test(arg) || namesLongOption(arg, '--patch') || arg === '--interactive',
    );
    return interactive ? read(rest) : [];
  }
  if (verb === 'cat-file') {
    // A hash may name any blob: only `-t`, `-s` and `-e` print no content.
    return rest.some((arg) => /^-[tse]$/.test(arg)) ? [] : [WHOLE_REPOSITORY];
  }
  if (COPIES_OUT.has(verb) || (verb === 'bundle' && rest[0] === 'create')) {
    return [WHOLE_REPOSITORY];
  }
  if (verb === 'worktree') return rest.includes('add') ? [WHOLE_REPOSITORY] : [];
  // A push to a path (`git push /tmp/b main`) copies the history where the agent reads it.
  if (verb === 'push' && rest.some((arg) => /^(\.{0,2}\/|~|file:)/.test(arg))) {
    return [WHOLE_REPOSITORY];
  }
  if (verb === 'checkout-index') {
    return rest.some((arg) => arg.startsWith('--prefix')) ? [WHOLE_REPOSITORY] : [];
  }
  // Any other verb of git's prints names, hashes, refs or messages, or changes the repository
  // without printing it; an alias or a `git-VERB` program may print anything.
  return GIT_COMMANDS.has(verb) || verb === 'lfs' || aliasGiven(args, verb)
    ? []
    : [WHOLE_REPOSITORY];
}
