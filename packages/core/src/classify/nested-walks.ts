/**
 * Programs whose arguments hold other commands the segment walker reads:
 * `find -exec`, `ssh host CMD`, and a program name that is a glob. The
 * walker passes itself in (`Walkers`), so this file does not import it.
 */
import { stdinScript } from './interpreters.js';
import type { LexedSegment, ShellWord } from './lexed-line.js';
import { programsMatching } from './program-globs.js';
import { type ActionTag, UNREAD_COMMAND_TAGS } from './tags.js';
import { nested, push, textsOf, type Walk } from './walk.js';
import { plainFrom } from './word-text.js';

/** The segment walker's two entry points. */
export interface Walkers {
  readonly words: (
    words: readonly ShellWord[],
    segment: LexedSegment,
    walk: Walk,
    tags: Set<ActionTag>,
  ) => void;
  readonly line: (line: string, walk: Walk) => void;
}

/**
 * Glob program names one classification matches against the programs it
 * knows, and words their readings may walk, all of them together: each
 * match costs a pass over the known names and re-reads the command, so
 * without a bound a line of many globs costs many times its length. Past
 * either, a glob is read as any program.
 */
export const MAX_GLOB_NAMES = 32;
/** See {@link MAX_GLOB_NAMES}. */
export const MAX_GLOB_WORDS = 4096;

/** ssh's options that take a value, as its getopt string lists them (OpenSSH 9). */
const SSH_VALUED = new Set('bcDEeFIiJLlmOoPpQRSWwB'.split('').map((letter) => `-${letter}`));
/**
 * ssh options after which no remote shell starts: `-N` (forwarding only),
 * `-W` (stdio forwarded to a port), `-O` (a command to a master connection),
 * and `-G`, `-Q`, `-V`, which print and exit.
 */
const SSH_NO_SHELL = new Set(['-N', '-W', '-O', '-G', '-Q', '-V']);
const FIND_RUNS = new Set(['-exec', '-execdir', '-ok', '-okdir']);

/** A program's arguments, its segment, the walk it was found in and the tags it collects. */
export interface ProgramCall {
  readonly args: readonly ShellWord[];
  readonly segment: LexedSegment;
  readonly walk: Walk;
  readonly tags: Set<ActionTag>;
}

/** `find ... -delete` deletes; `-exec CMD {} ;` runs CMD. */
export function walkFind({ args, segment, walk, tags }: ProgramCall, walkers: Walkers): void {
  tags.add('read');
  for (let index = 0; index < args.length; index++) {
    const text = args[index]!.text;
    if (text === '-delete') tags.add('delete');
    if (/^-f(print0?|printf|ls)$/.test(text)) {
      // find truncates the file before writing its list, even when nothing matches.
      tags.add('write');
      tags.add('delete');
      tags.add('destructive');
    }
    if (!FIND_RUNS.has(text)) continue;
    let stop = index + 1;
    while (stop < args.length && args[stop]!.text !== ';' && args[stop]!.text !== '+') stop++;
    walkers.words(args.slice(index + 1, stop), segment, nested(walk, `find ${text}`), new Set());
    index = stop;
  }
}

/**
 * The index of ssh's host among `words` from `from`, past its options; may
 * be past the end. Each option letter met is added to `letters` (as `-N`).
 */
function sshHost(words: readonly ShellWord[], from: number, letters?: Set<string>): number {
  let index = from;
  while (index < words.length && words[index]!.text.startsWith('-')) {
    const text = words[index]!.text;
    index++;
    // In a cluster (`-vvo Value`, `-p22`), a valued letter takes the rest, or the next word.
    for (let at = 1; at < text.length; at++) {
      letters?.add(`-${text[at]}`);
      if (!SSH_VALUED.has(`-${text[at]}`)) continue;
      if (at === text.length - 1) index++;
      break;
    }
  }
  return index;
}

/**
 * For `ssh [OPTIONS] HOST CMD...` at `words[at]`: where CMD starts, when
 * the remote shell reads its words as they are here (every word plain, the
 * first no option), so the walker reads CMD in place, as a wrapper's, and a
 * chain `ssh h ssh h ...` costs linear time; -1 otherwise (walkSsh joins
 * CMD and reads it again).
 */
export function plainSshCommand(words: readonly ShellWord[], at: number): number {
  const start = sshHost(words, at + 1) + 1;
  if (start >= words.length || plainFrom(words) > start) return -1;
  return words[start]!.text.startsWith('-') ? -1 : start;
}

/**
 * `ssh host command...` runs the command on another machine. Without a
 * command, the remote login shell runs whatever ssh's input holds: a
 * here-document is read as its script, any other input (a pipe, a file,
 * the caller's) is `unknown`, as it is for a local shell.
 */
export function walkSsh(
  { args, segment, walk, tags }: ProgramCall,
  walkers: Walkers,
  hop = false,
): void {
  tags.add('network');
  const letters = new Set<string>();
  const host = sshHost(args, 0, letters);
  const remote = args.slice(host + 1);
  if (remote.length === 0 && !hop) {
    if (host >= args.length || [...letters].some((letter) => SSH_NO_SHELL.has(letter))) return;
    tags.add('external');
    const script = stdinScript('ssh', segment);
    if (script.kind !== 'lines') tags.add('unknown');
    const lines = script.kind === 'words' ? [] : (script.lines ?? []);
    for (const line of lines) walkers.line(line, nested(walk, 'ssh <<'));
    return;
  }
  tags.add('external');
  if (remote.length === 0) return;
  walkers.line(textsOf(remote).join(' '), nested(walk, 'ssh'));
}

/**
 * A program name that is a glob (`/bin/r? -rf x`): bash runs whatever file
 * it matches, so the command is `unknown`, and read as each program the
 * classifier knows that the pattern fits; one that may be any program, or
 * a glob met again inside such a reading (`ba?h -c 'r? -rf x'`, not expanded
 * twice), or one past {@link MAX_GLOB_NAMES}, carries every tag but `read`.
 */
export function walkGlob(
  pattern: string,
  { args, segment, walk, tags }: ProgramCall,
  walkers: Walkers,
): void {
  const matching = walk.globbed || walk.budget.globs-- <= 0 ? null : programsMatching(pattern);
  const cost = (matching?.length ?? 0) * (args.length + 1);
  const names = matching !== null && cost <= walk.budget.globWords ? matching : null;
  if (names !== null) walk.budget.globWords -= cost;
  tags.add('unknown');
  if (names === null) for (const tag of UNREAD_COMMAND_TAGS) tags.add(tag);
  const note =
    names === null
      ? 'the program name is a glob pattern any program may match'
      : 'the program name is a glob pattern, matched against files';
  push(walk, [{ text: pattern, dynamic: false }, ...args], tags, note);
  const branch: Walk = { ...nested(walk, `glob ${pattern}`), globbed: true };
  for (const name of names ?? []) {
    walkers.words([{ text: name, dynamic: false }, ...args], segment, branch, new Set());
  }
}
