import type { EmbeddedCommands } from './embedded.js';
import { addEmptied, emptiesFile } from './emptied-files.js';
import type { Interpreted } from './interpreters.js';
import { laterCommands } from './later-commands.js';
import { type Walkers, walkFind, walkSsh } from './nested-walks.js';
import { programTags } from './program-tags.js';
import { recordPositionalPrograms } from './program-variables.js';
import type { LexedSegment, ShellWord } from './shell-lexer.js';
import { splitsIntoOptions } from './split-options.js';
import type { ActionTag } from './tags.js';
import type { Unwrapped } from './unwrapped.js';
import { nested, push, textsOf, type Walk } from './walk.js';

/*
 * The last step of the segment walker (segment-walker.ts): a command whose
 * wrappers are stripped gets its program's tags, or its nested lines walked,
 * or `unknown` where nothing reads it. The walker's own entry points come in
 * as `walkers`, as nested-walks.ts takes them.
 */

/** Programs whose arguments are code in their own language, where `a[$1]` is no shell subscript. */
const OTHER_LANGUAGES = /^([gmn]?awk|jq|yq|gojq|sed|gsed|perl|ruby)$/;

/** A simple command once its wrappers are stripped, with what was found of it on the way. */
export interface Command {
  readonly walk: Walk;
  readonly program: string;
  readonly words: readonly ShellWord[];
  readonly args: readonly ShellWord[];
  readonly segment: LexedSegment;
  readonly tags: Set<ActionTag>;
  readonly unwrapped: Unwrapped | null;
  readonly interpreted: Interpreted | null;
  /** The program is a fetched package's (`npx NAME`): `install_local` says what it runs. */
  readonly fetched: boolean;
  /** ssh's own words, whose remote command is read after them (`ssh h ls`). */
  readonly sshHop?: boolean;
}

/** A command no wrapper or interpreter was stripped from. */
export const NOT_WRAPPED = { unwrapped: null, interpreted: null, fetched: false } as const;

/** Tags a command once its wrappers are stripped: nested lines, unreadable code or a program. */
export function finishCommand(command: Command, walkers: Walkers): void {
  const { walk, program, words, args, segment, tags, unwrapped, interpreted } = command;
  if (unwrapped?.kind === 'line') {
    for (const tag of unwrapped.tags ?? []) tags.add(tag);
    if (unwrapped.dynamic) tags.add('unknown');
    const note = unwrapped.note ?? (unwrapped.dynamic ? 'runs an expansion' : undefined);
    if (tags.size > 0) push(walk, words, tags, note);
    walkers.line(unwrapped.line, nested(walk, program));
    return;
  }
  if (unwrapped?.kind === 'no_command') {
    tags.add(unwrapped.tag);
    if (emptiesFile(segment, null, [])) addEmptied(tags);
    push(walk, words, tags);
    return;
  }
  if (interpreted?.kind === 'lines') {
    if (tags.size > 0) push(walk, words, tags);
    // `sh -c '$0 x' rm` runs rm: the words after the script are its positional parameters.
    if (walk.programs && interpreted.positional)
      recordPositionalPrograms(walk.programs, interpreted.positional);
    for (const line of interpreted.lines) walkers.line(line, nested(walk, interpreted.via));
    return;
  }
  if (interpreted?.kind === 'unreadable') {
    // `... | sh` runs commands from a pipe: a here-document's are read as text instead.
    const piped = /from its input/.test(interpreted.note) && segment.inputs.length === 0;
    if (piped) walk.targets?.opaque.push(program);
    for (const tag of programTags(program, textsOf(args))) tags.add(tag);
    tags.add('unknown');
    push(walk, words, tags, interpreted.note);
    for (const line of interpreted.lines ?? []) walkers.line(line, nested(walk, program));
    return;
  }
  // The program's own tags, apart from its redirections' and wrappers': `make < f` is no read.
  const own = new Set<ActionTag>();
  if (program === 'find') walkFind({ args, segment, walk, tags: own }, walkers);
  else if (program === 'ssh') walkSsh({ args, segment, walk, tags: own }, walkers, command.sshHop);
  const texts = textsOf(args);
  // printf -v, declare, read, test -v, unset... evaluate a subscript in a name they are given.
  if (!OTHER_LANGUAGES.test(program) && args.some((arg) => arg.subscript)) own.add('unknown');
  if (splitsIntoOptions(program, args)) own.add('unknown');
  for (const tag of programTags(program, texts)) own.add(tag);
  if (emptiesFile(segment, program, texts)) addEmptied(own);
  if (program === 'sudoedit') own.add('write');
  const later = laterCommands(program, texts, segment.inputs, own);
  if (later.unknown !== undefined) own.add('unknown');
  for (const tag of own) tags.add(tag);
  if (own.size === 0 && later.lines.length === 0 && command.fetched) {
    push(walk, words, tags);
    return;
  }
  if (own.size === 0 && later.lines.length === 0) {
    tags.add('unknown');
    push(walk, words, tags, `no rule reads ${program}`);
    return;
  }
  if (tags.size > 0) push(walk, words, tags, later.unknown);
  walkEmbedded({ lines: later.lines }, walk, tags, walkers);
}

/** Classifies the command lines another command runs; an unreadable part adds `unknown`. */
export function walkEmbedded(
  embedded: EmbeddedCommands,
  walk: Walk,
  tags: Set<ActionTag>,
  walkers: Walkers,
): void {
  if (embedded.unknown !== undefined) tags.add('unknown');
  for (const { line, via } of embedded.lines) walkers.line(line, nested(walk, via));
}
