import { commandStart } from './command-start.js';
import { assignmentCommands } from './command-variables.js';
import { recordDefaultAssignments } from './default-assignments.js';
import { assignsDirectoryOptions } from './directory-changes.js';
import { noEmbedded } from './embedded.js';
import { addEmptied, afterPipe, emptiesFile } from './emptied-files.js';
import { subscriptCommands } from './expansion-checks.js';
import { finishCommand, NOT_WRAPPED, walkEmbedded } from './finish-command.js';
import { interpret } from './interpreters.js';
import {
  MAX_DEPTH,
  MAX_LINE_TEXT,
  MAX_SH_READINGS,
  pushUnread,
  readLine,
} from './line-readings.js';
import { recordAssignment } from './line-variables.js';
import {
  MAX_GLOB_NAMES,
  MAX_GLOB_WORDS,
  plainSshCommand,
  type Walkers,
  walkGlob,
} from './nested-walks.js';
import { runsOnlyItself } from './package-runners.js';
import { withPipedText } from './piped-text.js';
import { probeTags } from './probes.js';
import { isGlobName } from './program-globs.js';
import { namesOtherFile, programName } from './program-paths.js';
import {
  MAX_PROGRAM_VALUES,
  programAlternatives,
  recordAssignedProgram,
  recordDeclaredPrograms,
} from './program-variables.js';
import { promptCommands } from './prompt-expansions.js';
import { redirectionTags } from './redirection-tags.js';
import { withoutReplacement, withReplacement } from './replacement-strings.js';
import type { LexedSegment, ShellWord } from './shell-lexer.js';
import { appendedWordsAct } from './split-options.js';
import type { ActionTag } from './tags.js';
import {
  type ClassifiedSegment,
  nested,
  push,
  type ShellLineOptions,
  textsOf,
  type Walk,
  type WalkBudget,
  type WalkTargets,
  withTags,
} from './walk.js';
import { IFS, programLiteral, splitAtIfs } from './word-text.js';
import { pushWords, wrapperTargets } from './wrapper-targets.js';
import { unwrap } from './wrappers.js';

export type { ClassifiedSegment, ShellLineOptions };

const CLOSERS = new Set(['fi', 'done', 'esac', '}']);
/** Programs whose input is text they copy out, which names no path they read. */
const TEXT_SINKS = new Set(['cat', 'tee']);
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/;

/** The walker's entry points, for the programs of nested-walks.ts. */
const WALKERS: Walkers = { words: walkWords, line: walkLine };

/** Classifies every simple command of a line into `walk.out`. */
function walkLine(line: string, walk: Walk): void {
  const lexed = readLine(line, walk);
  if (lexed === null) return;
  // Each kind of problem once: a line of 2,000 stray `)` is one unknown segment, not 2,000 copies.
  const text = lexed.problems.length > 0 ? line.trim() : '';
  for (const problem of new Set(lexed.problems)) {
    push(walk, [{ text, dynamic: false }], new Set(['unknown']), problem);
  }
  const from = walk.out.length;
  // `: | tee f` empties f as `tee f < /dev/null` does: a pipe from a command printing nothing;
  // `echo 'rm x' | sh` runs what echo prints, as `sh <<< 'rm x'` does.
  let before: LexedSegment | undefined;
  for (const segment of lexed.segments) {
    walkSegment(
      before === undefined ? segment : withPipedText(before, afterPipe(before, segment)),
      walk,
    );
    before = segment;
  }
  if (lexed.problems.length === 0) return;
  // A line the lexer could not read is never read-only: its best-effort segments lose `read`.
  for (let index = from; index < walk.out.length; index++) {
    const segment = walk.out[index]!;
    const tags = segment.tags.filter((tag) => tag !== 'read');
    walk.out[index] = withTags(segment, tags.length > 0 ? tags : ['unknown']);
  }
}

function walkSegment(segment: LexedSegment, walk: Walk): void {
  // What `cat > f <<EOF` or `tee f <<EOF` is given is written out, not read as code.
  const first = segment.words[0];
  const sink = first !== undefined && TEXT_SINKS.has(programName(first.text));
  if (!sink) for (const input of segment.inputs) walk.targets?.texts.push(input.text);
  for (const source of segment.substitutions) walkLine(source, nested(walk, '$(...)'));
  for (const { line, via } of promptCommands(segment.words, walk.programs).lines)
    walkLine(line, nested(walk, via));
  if (walk.programs) recordDefaultAssignments(segment.words, walk.programs);
  // `let 'a[$(rm -rf y)]'`: bash runs a subscript's command where it evaluates the word.
  const payloads = segment.words.filter((word) => word.subscript).map((word) => word.text);
  for (const source of payloads.flatMap(subscriptCommands))
    walkLine(source, nested(walk, 'a[...]'));
  walkWords(segment.words, segment, walk, redirectionTags(segment, walk.targets));
}

/**
 * Walks the commands an assignment's value makes a later program run
 * (`GIT_SSH_COMMAND=...`); a value with a command in a subscript
 * (`x='a[$(rm -rf y)]'`) runs it wherever bash evaluates `x` as arithmetic.
 */
function walkAssignment(word: ShellWord, walk: Walk, tags: Set<ActionTag>): void {
  if (word.subscript) tags.add('unknown');
  // `BASHOPTS=cdable_vars bash -c 'cd d; cat key'` enters a directory the words do not say.
  if (assignsDirectoryOptions(word)) walk.targets?.directories.push(null);
  // `env v=rm` gives no later command v, but reading more values costs nothing: more tags, not fewer.
  if (walk.programs) recordAssignedProgram(walk.programs, word);
  const embedded = noEmbedded();
  assignmentCommands(word.text, embedded);
  walkEmbedded(embedded, walk, tags, WALKERS);
}

function walkWords(
  all: readonly ShellWord[],
  segment: LexedSegment,
  outer: Walk,
  tags: Set<ActionTag>,
): void {
  if (outer.depth > MAX_DEPTH) {
    pushUnread(outer, all, tags, 'nested too deeply');
    return;
  }
  // Wrappers are stripped in a loop over one array (no copies), so a long chain costs linear time.
  let words = all;
  let at = 0;
  const via = [...outer.via];
  // Rewrites copy the words (python -m, an expanded name): bounded so hostile chains stay linear.
  let rewrites = 0;
  // ssh hops read in place (`ssh h ssh h ls`).
  let hops = 0;
  // Reached through xargs: words read from the input are added to the command.
  let appended = false;
  // Where a package runner's command starts (`npx NAME`): NAME is a fetched package's program.
  let packageWords: readonly ShellWord[] | null = null;
  let packageAt = -1;
  // What xargs replaces with the words it reads (`-I{}`): a program name holding it is no literal name.
  let replacement: string | null = null;
  const walk = (): Walk => ({ ...outer, via: [...via] });
  for (;;) {
    at = commandStart(words, at, outer, tags);
    // An arithmetic command sets variables as an assignment does (its payloads are lexer problems).
    while (at < words.length && (words[at]!.arithmetic || ASSIGNMENT.test(words[at]!.text))) {
      if (!words[at]!.arithmetic) walkAssignment(words[at]!, walk(), tags);
      if (!words[at]!.arithmetic && outer.targets) recordAssignment(outer.targets, words[at]!);
      at++;
    }
    const remaining = words.length - at;
    if (remaining === 0 || (remaining === 1 && CLOSERS.has(words[at]!.text))) {
      if (remaining === 0 && emptiesFile(segment, null, [])) addEmptied(tags);
      if (tags.size > 0) push(walk(), all, tags);
      return;
    }
    const first = words[at]!;
    if (first.dynamic && first.text.search(IFS) >= 0 && ++rewrites <= MAX_DEPTH) {
      // The separator splits the words (`rm${IFS}-rf${IFS}y` runs `rm -rf y`): read them split.
      tags.add('unknown');
      words = words.slice(at).flatMap(splitAtIfs);
      at = 0;
      continue;
    }
    if (first.dynamic) {
      tags.add('unknown');
      // `v=rm; $v -rf x` runs rm: each value the line gives the variable is read as the program.
      const named = outer.programs ? programAlternatives(first.text, outer.programs) : null;
      if (named !== null && ++rewrites <= MAX_DEPTH) {
        if (outer.targets) pushWords(outer.targets, words.slice(at + 1, at + 2));
        for (const value of named) {
          // Values read through values (`v=env; $v $v ...`) stay bounded over the whole line.
          if (outer.budget.programValues-- <= 0) {
            pushUnread(walk(), words.slice(at), tags, 'too many programs named by variables');
            return;
          }
          const valueWords = value.map((text) => ({ text, dynamic: false }));
          const next = nested(walk(), first.text);
          walkWords([...valueWords, ...words.slice(at + 1)], segment, next, tags);
        }
        return;
      }
      const literal = programLiteral(withoutReplacement(first.text, replacement));
      if (
        (literal === '' && at + 1 >= words.length) ||
        (literal !== '' && ++rewrites > MAX_DEPTH)
      ) {
        push(walk(), words.slice(at), tags, 'the program name is an expansion');
        return;
      }
      // An expansion may be empty (`$() npm i x` runs npm): the words after it are read as well,
      // and each is a word the unknown program may open (`$X .env`), its first one too.
      if (literal === '') {
        if (outer.targets) pushWords(outer.targets, words.slice(at + 1, at + 2));
        at++;
        continue;
      }
      // `$(true)rm -rf x` still runs rm: the literal part of the name is read as well.
      words = [{ text: literal, dynamic: false }, ...words.slice(at + 1)];
      at = 0;
      continue;
    }
    const program = programName(first.text);
    if (outer.programs) {
      const { inputs } = segment;
      recordDeclaredPrograms(outer.programs, program, { words, from: at + 1, inputs });
    }
    // `./cat` runs whatever file is there (a link to rm named cat runs rm): read as cat, and unknown.
    // A runner's `@scope/name` is a package, not a path.
    const scoped = words === packageWords && at === packageAt && first.text.startsWith('@');
    if (namesOtherFile(first.text) && !scoped) tags.add('unknown');
    const remote = program === 'ssh' && !appended ? plainSshCommand(words, at) : -1;
    // Each hop's segment copies the path to it: past this many, the rest is not read.
    if (remote >= 0 && ++hops > MAX_DEPTH) {
      pushUnread(walk(), words.slice(at), tags, 'nested too deeply');
      return;
    }
    if (remote >= 0) {
      // `ssh -p 22 h ssh h ls`: ssh's own words are a command (its `-o` may run one here); its
      // plain remote words are read in place, as a wrapper's, so a chain stays linear.
      const own = { walk: walk(), program, words: words.slice(at, remote), segment };
      const args = own.words.slice(1);
      finishCommand(
        { ...own, args, tags: new Set(['external']), ...NOT_WRAPPED, sshHop: true },
        WALKERS,
      );
      via.push('ssh');
      at = remote;
      continue;
    }
    if (isGlobName(program)) {
      const call = { args: words.slice(at + 1), segment, walk: walk(), tags };
      walkGlob(program, call, WALKERS);
      return;
    }
    const unwrapped = unwrap(program, words, at + 1);
    // env's assignments are read whether or not it runs a command (a word `x='a[$(...)]'` counts).
    if ((program === 'env' || program === 'cross-env') && unwrapped?.kind !== 'line') {
      const end = unwrapped?.kind === 'words' ? unwrapped.from : words.length;
      for (let index = at + 1; index < end; index++) {
        if (words[index]!.text.includes('=')) walkAssignment(words[index]!, walk(), tags);
      }
    }
    if (unwrapped?.kind === 'words') {
      if (outer.targets) wrapperTargets(outer.targets, words, at, unwrapped.from, segment);
      if (unwrapped.write) tags.add('write');
      if (unwrapped.tags) for (const tag of unwrapped.tags) tags.add(tag);
      for (const line of unwrapped.lines ?? []) walkLine(line, nested(walk(), program));
      if (unwrapped.appendsInput) appended = true;
      if (unwrapped.runsPackage) [packageWords, packageAt] = [words, unwrapped.from];
      via.push(program);
      at = unwrapped.from;
      if (unwrapped.replacement !== undefined && ++rewrites <= MAX_DEPTH) {
        replacement = unwrapped.replacement;
        words = withReplacement(words, at, replacement);
        at = 0;
      } else if (unwrapped.replacement !== undefined) tags.add('unknown');
      continue;
    }
    // `echo -delete | xargs find x` runs `find x -delete`; `xargs env` runs what it reads.
    if (appended && appendedWordsAct(program)) tags.add('unknown');
    const args = words.slice(at + 1);
    const probe = unwrapped === null ? probeTags(program, textsOf(args)) : null;
    if (probe !== null) {
      for (const tag of probe) tags.add(tag);
      push(walk(), words.slice(at), tags);
      return;
    }
    const interpreted = unwrapped === null ? interpret(program, args, segment) : null;
    if (interpreted?.kind === 'words' && ++rewrites > MAX_DEPTH) {
      pushUnread(walk(), words.slice(at), tags, 'nested too deeply');
      return;
    }
    if (interpreted?.kind === 'words') {
      // `uv run python -m pytest`: the module, like the program, comes with the fetched packages.
      if (words === packageWords && at === packageAt)
        [packageWords, packageAt] = [interpreted.words, 0];
      via.push(interpreted.via);
      words = interpreted.words;
      at = 0;
      continue;
    }
    finishCommand(
      {
        walk: walk(),
        program,
        words: words.slice(at),
        args,
        segment,
        tags,
        unwrapped,
        interpreted,
        fetched: words === packageWords && at === packageAt && runsOnlyItself(program),
      },
      WALKERS,
    );
    return;
  }
}

/** A whole budget, for a line a caller gives. */
function fullBudget(): WalkBudget {
  return {
    globs: MAX_GLOB_NAMES,
    globWords: MAX_GLOB_WORDS,
    shReadings: MAX_SH_READINGS,
    text: MAX_LINE_TEXT,
    programValues: MAX_PROGRAM_VALUES,
  };
}

/**
 * Classifies a shell command line segment by segment: each simple command
 * with its action tags and the wrappers or nestings it was found through.
 * Fails closed: what it cannot read is an `unknown` segment with a note.
 */
export function classifyShellSegments(
  command: string,
  options: ShellLineOptions = {},
): ClassifiedSegment[] {
  const out: ClassifiedSegment[] = [];
  const budget = fullBudget();
  const top = options.shell === 'bash' ? { topShell: 'bash' as const } : {};
  walkLine(command, { out, budget, depth: 0, via: [], programs: new Map(), ...top });
  return out;
}

/**
 * The targets an effect profile lists of a command line, read as
 * {@link classifyShellSegments} reads it: every command's words after its
 * program (inside `bash -c`, `$(...)`, `ssh host '...'` and wrappers too),
 * and the files its redirections write to.
 */
export function shellWalkTargets(command: string): WalkTargets {
  const targets: WalkTargets = {
    words: [],
    files: [],
    reads: [],
    recursive: [],
    searchFilters: new Map(),
    directories: [],
    expanded: [],
    texts: [],
    code: [],
    printed: [],
    namedOnly: [],
    listed: [],
    opaque: [],
    variables: new Map(),
  };
  const budget = fullBudget();
  walkLine(command, { out: [], budget, depth: 0, via: [], targets, programs: new Map() });
  return targets;
}
