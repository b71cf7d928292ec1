/** Where the segment walker is: what it found so far, how deep, and through what. */

import { directoryChange } from './directory-changes.js';
import { filterOperand } from './filter-operands.js';
import { hasFlag } from './flags.js';
import { gitWorkingDirectories } from './git-content-reads.js';
import type { ShellWord } from './lexed-line.js';
import { declaredAssignments, recordDeclarations, recordSetters } from './line-variables.js';
import { readsListedNames } from './listed-names.js';
import { messageWords } from './message-words.js';
import { type NamesOnlyWords, namesOnlyWords } from './names-only-words.js';
import { programName } from './program-paths.js';
import type { ProgramValues } from './program-variables.js';
import { recursiveReads } from './recursive-reads.js';
import { noteSearchFilter, searchNameFilter } from './search-name-filters.js';
import { type ActionTag, orderedTags } from './tags.js';

/** Programs that print their words and open no file: a glob given them names, it reads nothing. */
const PRINTERS = new Set(['echo', 'printf']);
/** A word that is one variable's value or one command's output (`$HOME`, `${HOME}`, `$(date)`). */
const QUOTED_VALUE = /^\$(\{[A-Za-z_][A-Za-z0-9_]*\}|[A-Za-z_][A-Za-z0-9_]*|\((?!\().*\))$/s;

/** One simple command found in a shell line, with its action tags. */
export interface ClassifiedSegment {
  /** The command's words as read (quotes removed, expansions as written). */
  readonly command: string;
  /** What it was found inside, outermost first: `sudo`, `bash -c`, `$(...)`, `find -exec`. */
  readonly via: readonly string[];
  readonly tags: readonly ActionTag[];
  /** Why it is `unknown`, when the classifier could not read it. */
  readonly note?: string;
}

/** What one classification may still spend, shared by every level of its walk. */
/** What a caller knows of how its command line runs. */
export interface ShellLineOptions {
  /**
   * The shell that runs the line, when the caller knows it (an agent
   * harness that runs bash). Left out, the line is read as bash and as
   * POSIX sh (`/bin/sh`, dash on Debian), and carries the tags of both.
   */
  readonly shell?: 'bash';
}

export interface WalkBudget {
  /** Glob program names that may still be matched against the known programs (see nested-walks.ts). */
  globs: number;
  /** Words the readings of glob program names may still walk. */
  globWords: number;
  /** Lines that may still be read a second time as POSIX sh (see line-readings.ts). */
  shReadings: number;
  /** Characters of nested lines that may still be read (see line-readings.ts). */
  text: number;
  /** Values of a variable that may still be read as the program it names (program-variables.ts). */
  programValues: number;
}

/**
 * What an effect profile lists of a walk: the words after each command's
 * program, nested commands included (`bash -c 'rm -rf /etc'`), and the
 * files redirections write to.
 */
export interface WalkTargets {
  readonly words: string[];
  readonly files: string[];
  /** The files input redirections read (`cat < f`). */
  readonly reads: string[];
  /**
   * The directories commands read through, named or not (`.` of `rg x`, `src` of `grep -r x
   * src`; see recursive-reads.ts).
   */
  readonly recursive: string[];
  /**
   * The one name filter each of {@link recursive} is searched with (`*.ts` of `rg -g '*.ts' x`),
   * null where a reading of it has none or another (search-name-filters.ts).
   */
  readonly searchFilters: Map<string, string | null>;
  /**
   * The directories `cd` and `pushd` change to, in any order and any subshell (null for one
   * the words do not say, `cd "$X"`): a relative word may be read in any of them.
   */
  readonly directories: (string | null)[];
  /** The words with an expansion (`$F`, `"${a:-x}/key"`, `$(cmd)/k`), as written. */
  readonly expanded: string[];
  /** Text commands read that may name paths in a language of its own (here-documents, here-strings). */
  readonly texts: string[];
  /** Words that are code in a program's own language (a jq filter): only the names in them are paths. */
  readonly code: string[];
  /**
   * The words of programs that print their words and open no file (`echo *`, `printf '%s' *`):
   * a glob among them gives names, so only what the words spell is read.
   */
  readonly printed: string[];
  /**
   * Words a command reads only as the path they name, never as a directory whose files it
   * reads: the directory `cd DIR` and `git -C DIR` work in, what `ls DIR` lists (names).
   */
  readonly namedOnly: string[];
  /**
   * Words a known builder is given (`eslint .`; see names-only-words.ts): read as {@link
   * namedOnly} while they lie inside the project, as any word outside it (`cmake ..` run in the
   * project root). A names-only lister's (`find src`, `tree ..`) are {@link namedOnly} wherever.
   */
  readonly listed: string[];
  /**
   * The programs that run commands or words no one can read here (`curl ... | sh`, `... |
   * xargs cat`), or read files a list names (`tar -T list`): what they name is unknown.
   */
  readonly opaque: string[];
  /** The values the line gives its variables (line-variables.ts); null for one not known. */
  readonly variables: Map<string, (string | null)[]>;
}

/** The state of one walk: the segments found, the nesting depth and the wrappers passed. */
export interface Walk {
  readonly out: ClassifiedSegment[];
  readonly budget: WalkBudget;
  readonly depth: number;
  readonly via: readonly string[];
  /** Inside a program name read as a glob's matches: another glob there is not expanded again. */
  readonly globbed?: true;
  /** The caller says bash runs the line it gave; without it, the line is read as bash and as sh. */
  readonly topShell?: 'bash';
  /** Where the walk records targets, when they are asked for. */
  readonly targets?: WalkTargets;
  /** The literal values the line gives its variables, for a program named by one (program-variables.ts). */
  readonly programs?: ProgramValues;
}

/**
 * Each segment's words as read, kept beside it (a word may hold a space: `git -C "my dir"
 * push`, whose command text alone cannot tell `my dir` from two words).
 */
const segmentWords = new WeakMap<ClassifiedSegment, readonly string[]>();

/** The words of a segment the walker found; its command split at spaces for any other. */
export function wordsOfSegment(segment: ClassifiedSegment): readonly string[] {
  return segmentWords.get(segment) ?? segment.command.split(' ');
}

/** A segment with other tags, its words kept. */
export function withTags(
  segment: ClassifiedSegment,
  tags: readonly ActionTag[],
): ClassifiedSegment {
  const changed = { ...segment, tags };
  const words = segmentWords.get(segment);
  if (words !== undefined) segmentWords.set(changed, words);
  return changed;
}

/**
 * Where a names-only command's words go: a lister's (`tree ..`, `find / -name x`) prints names
 * wherever they lie, as a listing tool's directory above the project root does; a builder's
 * (`cmake ..`) reads the files of one outside the project.
 */
function listedInto(targets: WalkTargets, listing: NamesOnlyWords | undefined): string[] {
  return listing?.lister === true ? targets.namedOnly : targets.listed;
}

/** Records one classified command. */
export function push(walk: Walk, words: readonly ShellWord[], tags: Set<ActionTag>, note?: string) {
  const texts = textsOf(words);
  if (walk.targets) {
    const filter = filterOperand(texts);
    const program = words[0]?.dynamic === false ? programName(texts[0]!) : '';
    const printer = PRINTERS.has(program);
    const changed = directoryChange(words);
    const listing = changed === undefined ? namesOnlyWords(program, words) : undefined;
    // `cd DIR` and `git -C DIR` work in DIR, `ls DIR` lists its names: they read no file of it.
    const namedOnly = new Set(
      changed !== undefined
        ? words.keys()
        : program === 'git'
          ? gitWorkingDirectories(texts)
          : program === 'ls' && !hasFlag(texts.slice(1), '-R', '--recursive')
            ? texts.keys()
            : [],
    );
    const listed = new Set(namedOnly.size === 0 ? listing?.named : []);
    // `export F=$G/key` opens nothing: the value it records is read (recordDeclarations).
    const declared = declaredAssignments(words);
    // `git commit -m "$(cat <<'EOF' ...)"` records a message: text, never a path.
    for (const index of messageWords(program, texts)) declared.add(index);
    // `find . -name .env` prints the names a pattern matches, as Glob given it does.
    for (const index of listing?.patterns ?? []) declared.add(index);
    for (const [index, word] of words.entries()) {
      if (index === 0 || declared.has(index)) continue;
      // `echo "$HOME"` prints one quoted value whole (no glob): it opens nothing, names nothing.
      if (printer && word.dynamic && word.splits !== true && QUOTED_VALUE.test(word.text)) continue;
      // A jq filter is code: only the names inside it are read (see filter-operands.ts).
      if (index === filter && !word.dynamic) walk.targets.code.push(word.text);
      else if (namedOnly.has(index)) walk.targets.namedOnly.push(word.text);
      else if (listed.has(index)) listedInto(walk.targets, listing).push(word.text);
      else (printer ? walk.targets.printed : walk.targets.words).push(word.text);
      if (word.dynamic) walk.targets.expanded.push(word.text);
    }
    if (listing === undefined) {
      const read = recursiveReads(texts);
      walk.targets.recursive.push(...read);
      const filter = searchNameFilter(texts) ?? null;
      for (const directory of read) noteSearchFilter(walk.targets.searchFilters, directory, filter);
    } else if (listing.listsHere) listedInto(walk.targets, listing).push('.');
    if (readsListedNames(texts)) walk.targets.opaque.push(texts[0]!);
    recordDeclarations(walk.targets, words);
    recordSetters(walk.targets, words);
    if (changed !== undefined) walk.targets.directories.push(changed);
  }
  const segment: ClassifiedSegment = {
    command: texts.join(' '),
    via: walk.via,
    tags: orderedTags(tags),
    ...(note === undefined ? {} : { note }),
  };
  segmentWords.set(segment, texts);
  walk.out.push(segment);
}

/** The walk one level down, through `via`. */
export function nested(walk: Walk, via: string): Walk {
  return {
    out: walk.out,
    budget: walk.budget,
    depth: walk.depth + 1,
    via: [...walk.via, via],
    ...(walk.globbed ? { globbed: true as const } : {}),
    ...(walk.topShell ? { topShell: walk.topShell } : {}),
    ...(walk.targets ? { targets: walk.targets } : {}),
    ...(walk.programs ? { programs: walk.programs } : {}),
  };
}

/** The words' texts. */
export function textsOf(words: readonly ShellWord[]): string[] {
  return words.map((word) => word.text);
}
