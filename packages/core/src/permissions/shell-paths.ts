import { MAX_CLASSIFIED_COMMAND_LENGTH } from '../classify/action-tags.js';
import { commandsCarried, patchTextFields } from '../classify/effect-profile.js';
import { noteSearchFilter } from '../classify/search-name-filters.js';
import { shellWalkTargets } from '../classify/segment-walker.js';
import type { ToolManifestEntry } from '../schemas/permissions.js';
import { globParts } from './glob-words.js';
import { leadingDirectories } from './leading-directories.js';
import { expandedWords } from './shell-variables.js';
import { ANYWHERE, type CanonicalTarget, canonicalPath, workingBase } from './targets.js';

/** How many working directories a line's `cd`s may lead to before it is read as going anywhere. */
const MAX_DIRECTORIES = 16;

/**
 * The directories a command line's relative words may be read in: the one it starts in (`.`)
 * and every one its `cd`s and `pushd`s lead to, in any order (a subshell's `cd` or one after
 * the word is counted too: more directories, never fewer); null when one is not said by its
 * words (`cd "$X"`, `cd -`, `popd`) or there are too many.
 */
function workingDirectories(
  changes: readonly (string | null)[],
  where: { projectRoot: string | undefined; start: string },
): string[] | null {
  const { projectRoot } = where;
  const found = new Set<string>([where.start]);
  for (let round = 0; round < changes.length; round++) {
    const before = found.size;
    for (const change of changes) {
      if (change === null) return null;
      for (const from of [...found]) {
        found.add(
          canonicalPath(change.startsWith('/') ? change : `${from}/${change}`, projectRoot).text,
        );
        if (found.size > MAX_DIRECTORIES) return null;
      }
    }
    if (found.size === before) break;
  }
  return [...found];
}

/** Whether a word starts in a home directory (`~`, `~/x`, `~user/x`), which may hold the project. */
function namesHome(word: string): boolean {
  return /^~[^/]*(\/|$)/.test(optionValue(word));
}

/** What separates the paths inside a word of code or quoted text. */
const TOKEN_SEPARATORS = /[\s"'`(),;:=@<>|&{}[\]]+/;

/** The parts of a word or a text between separators, when it has any (`HEAD:secrets/key`). */
function pathTokens(text: string): string[] {
  if (!TOKEN_SEPARATORS.test(text)) return [];
  // `'/'` or `".."` in code is rarely a path it reads: only a part with a name is read.
  return text.split(TOKEN_SEPARATORS).filter((token) => /[^./]/.test(token) && token !== text);
}

/**
 * Whether a printed glob names what a directory's entries hold (`echo s*` + `/*`): one whose
 * only wildcard segment is its last (`echo *`, `*` + `/`) names entries of one directory, as `ls` does.
 */
function namesInside(word: string): boolean {
  const path = optionValue(word).replace(/\/+$/, '');
  return globParts(path.slice(0, path.lastIndexOf('/') + 1)) !== null;
}

/** How many letters of a short option cluster may each start a glued value. */
const MAX_GLUED_LETTERS = 64;

/**
 * What a short option cluster may carry glued to one of its letters (`secrets/key` of `sort
 * -osecrets/key`, `.env` of `grep -f.env`): the text after each of its leading letters, since
 * which letter takes a value depends on the program. Empty for any other word.
 */
function gluedValues(word: string): string[] {
  if (!/^-[A-Za-z0-9]/.test(word) || word.includes('=')) return [];
  const values: string[] = [];
  for (let at = 2; at <= Math.min(word.length - 1, MAX_GLUED_LETTERS); at++) {
    values.push(word.slice(at));
    if (!/[A-Za-z0-9]/.test(word[at]!)) break;
  }
  return values;
}

/** A word as a path: itself, or an option's `=VALUE` (empty for a bare option). */
function optionValue(word: string): string {
  return word.startsWith('-') ? word.slice(word.indexOf('=') + 1 || word.length) : word;
}

/**
 * The words a call's shell commands give their programs, as paths: every word after a
 * program that is no bare option (an option's `=VALUE` is read), inside `bash -c`,
 * `$(...)` and the wrappers the classifier unwraps, the files redirections read and write,
 * and the directory a recursive reader given no path reads (`.` of `rg x`). A relative word
 * is read in the call's working directory (the project root when none is said; anywhere for
 * one that cannot be placed, see workingBase) and each directory the line's `cd`s may have led to (`cd src && cat a.key` names
 * `src/a.key`); the directory a `cd` or `git -C` enters names a guarded path only when it is one
 * (`cd /repo` reads nothing it holds), as do the words of a names-only lister or a known builder
 * (`find . -name x`, `eslint .`; see names-only-words.ts) while they lie inside the project. A word may be no path at all (`echo secrets/key`), so a rule reads these
 * only to ask. Read within the classifier's bound over the call's commands together; past
 * it, or past a `cd` to a directory the words do not say, a word whose expansion may name
 * any path (`cat $F`) or one in a home directory (`~/x`), the call names the filesystem
 * root, which holds every guarded path.
 */
export function shellPathTargets(
  entry: Pick<ToolManifestEntry, 'commands' | 'targets'> | undefined,
  input: unknown,
  projectRoot: string | undefined,
  workingDirectory?: string,
): CanonicalTarget[] {
  // A line starts in the call's working directory (see workingBase); one that cannot be placed
  // leaves every relative word naming anywhere.
  const base = workingBase(workingDirectory, projectRoot);
  let unplaced = false;
  const texts = new Set<string>();
  const through = new Set<string>();
  const filters = new Map<string, string | null>();
  const globs = new Set<string>();
  const namedOnlyTexts = new Set<string>();
  const listedTexts = new Set<string>();
  let budget = MAX_CLASSIFIED_COMMAND_LENGTH;
  for (const command of commandsCarried(input, entry?.commands, patchTextFields(entry)).commands) {
    // Past the bound a command is not read (a megabyte of words would cost every rule a pass):
    // it may name anything, as the filesystem root does.
    if (command.length > budget) return [ANYWHERE];
    budget -= command.length;
    const walked = shellWalkTargets(command);
    // A leading `cd docs &&` moves where the line starts; its other cds are read as before.
    const changes = [...walked.directories];
    let start = base ?? '.';
    // Past the bound the rest are read as any cd (a line of thousands would cost a pass each).
    for (const directory of leadingDirectories(command).slice(0, MAX_DIRECTORIES)) {
      const at = changes.indexOf(directory);
      if (at < 0) break;
      changes.splice(at, 1);
      const joined = directory.startsWith('/') ? directory : `${start}/${directory}`;
      start = canonicalPath(joined, projectRoot).text;
    }
    const here = workingDirectories(changes, { projectRoot, start });
    const dynamic = new Set(walked.expanded);
    const expands = (word: string) => dynamic.has(word);
    const words = expandedWords(walked.words, expands, walked.variables);
    const printed = expandedWords(walked.printed, expands, walked.variables);
    const namedOnly = expandedWords(
      [...walked.namedOnly, ...walked.listed],
      expands,
      walked.variables,
    );
    const listed = new Set(walked.listed);
    const recursive = expandedWords(walked.recursive, expands, walked.variables);
    // A redirection's target keeps its expansions as written (`cat < $F`).
    const redirected = expandedWords(
      [...walked.files, ...walked.reads],
      (word) => /[$`]/.test(word),
      walked.variables,
    );
    if (here === null || words === null || printed === null || namedOnly === null)
      return [ANYWHERE];
    if (recursive === null || redirected === null) return [ANYWHERE];
    // A glob the shell expands in `cd s*` is read as any other word.
    const globbed = namedOnly.filter((word) => globParts(optionValue(word)) !== null);
    const spelled = [...words, ...words.flatMap(gluedValues), ...printed, ...globbed];
    const home = [...spelled, ...namedOnly, ...redirected].some(namesHome);
    if (walked.opaque.length > 0 || home) return [ANYWHERE];
    const add = (word: string, into: Set<string>) => {
      const value = optionValue(word);
      if (value === '') return;
      if (value.startsWith('/')) into.add(value);
      else if (base === null) unplaced = true;
      else
        for (const directory of here) into.add(directory === '.' ? value : `${directory}/${value}`);
    };
    for (const word of [...spelled, ...redirected, ...walked.texts]) add(word, texts);
    for (const word of namedOnly) {
      if (!globbed.includes(word)) add(word, listed.has(word) ? listedTexts : namedOnlyTexts);
    }
    // Code and quoted text name paths inside a word (`python3 -c 'open("secrets/key")'`,
    // `git show HEAD:secrets/key`, `curl -F f=@secrets/key`) or a here-document.
    // A names-only word may hold code too (`make --eval='all: ; cat .env'`).
    for (const text of [...spelled, ...namedOnly, ...walked.texts, ...walked.code]) {
      for (const token of pathTokens(text)) add(token, texts);
    }
    for (const word of recursive) {
      const placed = new Set<string>();
      add(word, placed);
      // A directory searched for one name filter only (`rg -g '*.ts' x`) reads no other name.
      const filter = walked.searchFilters.get(word) ?? null;
      for (const text of placed) {
        noteSearchFilter(filters, text, filter);
        through.add(text);
      }
    }
    const readThrough = new Set(recursive);
    const listing = printed.filter(namesInside);
    for (const word of [...words, ...globbed, ...redirected, ...recursive, ...listing]) {
      const value = optionValue(word);
      const glob = globParts(value);
      if (glob === null) continue;
      // Every name a glob gives ends in its last segment, unless a reader reads it through.
      const last = readThrough.has(word) ? '' : value.slice(value.lastIndexOf('/') + 1);
      const directories = new Set<string>();
      add(glob.directory, directories);
      for (const directory of directories) globs.add(`${glob.entry}\0${directory}\0${last}`);
    }
  }
  if (unplaced) return [ANYWHERE];
  const globTargets = [...globs].map((key) => {
    const [entry, directory, last] = key.split('\0') as [string, string, string];
    const target = { ...canonicalPath(directory, projectRoot), globEntry: entry };
    return last === '' ? target : { ...target, globLast: last };
  });
  return [
    ...globTargets,
    ...[...texts]
      .filter((text) => !through.has(text))
      .map((text) => canonicalPath(text, projectRoot)),
    ...[...through].map((text) => {
      const filter = filters.get(text);
      const target = { ...canonicalPath(text, projectRoot), readThrough: true as const };
      return filter ? { ...target, readsOnlyNames: filter } : target;
    }),
    ...[...namedOnlyTexts]
      .filter((text) => !texts.has(text) && !through.has(text))
      .map((text) => ({ ...canonicalPath(text, projectRoot), namedOnly: true as const })),
    // A listing or a build leaving the project root (`cmake ..` run there) reads it as any word.
    ...[...listedTexts]
      .filter((text) => !texts.has(text) && !through.has(text) && !namedOnlyTexts.has(text))
      .map((text) => canonicalPath(text, projectRoot))
      .map((target) => (target.rooted ? { ...target, namedOnly: true as const } : target)),
  ];
}

/**
 * How many (pattern, path) pairs the rules may match against one call's shell paths: a
 * call of thousands of words under rules of hundreds of patterns would cost seconds.
 */
export const SHELL_MATCH_BUDGET = 10_000;

/** The paths of a call's shell commands ({@link shellPathTargets}), read on first use. */
export class ShellPaths {
  #targets: readonly CanonicalTarget[] | undefined;
  #budget = SHELL_MATCH_BUDGET;

  constructor(private readonly read: () => readonly CanonicalTarget[]) {}

  /**
   * Whether a path satisfies `reaches`, matched against `patterns` patterns. Past the call's
   * {@link SHELL_MATCH_BUDGET}, true without matching: a call costing more is asked, not read.
   */
  some(patterns: number, reaches: (target: CanonicalTarget) => boolean): boolean {
    this.#targets ??= this.read();
    if (this.#targets.length === 0) return false;
    this.#budget -= patterns * this.#targets.length;
    return this.#budget < 0 || this.#targets.some(reaches);
  }
}

/** The {@link ShellPaths} of a call. */
export function lazyShellPaths(
  entry: Pick<ToolManifestEntry, 'commands' | 'targets'> | undefined,
  input: unknown,
  projectRoot: string | undefined,
  workingDirectory?: string,
): ShellPaths {
  return new ShellPaths(() => shellPathTargets(entry, input, projectRoot, workingDirectory));
}
