import { ENVIRONMENT_PROGRAMS, environmentRunner } from './environment-runners.js';
import { JOB_WRAPPERS, jobWrapper } from './job-wrappers.js';
import { laterWrapper } from './later-wrappers.js';
import { nodeWrapper } from './node-wrappers.js';
import { packageRunner } from './package-runners.js';
import { xargsReplacement } from './replacement-strings.js';
import { sandboxWrapper } from './sandbox-wrappers.js';
import type { ShellWord } from './shell-lexer.js';
import { writesNoFile } from './streams.js';
import type { ActionTag } from './tags.js';
import { TERMINAL_WRAPPERS, terminalWrapper } from './terminal-wrappers.js';
import { type Unwrapped, uncertainStart } from './unwrapped.js';
import { splitsBefore } from './word-text.js';
import type { WrapperGrammar } from './wrapper-grammar.js';
import {
  GRAMMAR_WRAPPERS,
  RUNUSER,
  verbGrammar,
  verbIndex,
  wrapperGrammar,
} from './wrapper-grammars.js';

/**
 * Whether runuser names a user with `-u` and is given no `-c` command. Every
 * word up to `--` is looked at: a `-c` that belongs to the command only sends
 * it the way of `su`, which reads `-c` too.
 */
function runsDirectly(words: readonly ShellWord[], from: number): boolean {
  let user = false;
  for (let index = from; index < words.length; index++) {
    const text = words[index]!.text;
    if (text === '--') break;
    if (/^-[a-zA-Z]*c/.test(text) || /^--(command|session-command)/.test(text)) return false;
    if (/^-[a-zA-Z]*u/.test(text) || /^--user/.test(text)) user = true;
  }
  return user;
}

/** Programs that run the rest of their words as another command. */
export const WRAPPER_NAMES: ReadonlySet<string> = new Set([
  ...GRAMMAR_WRAPPERS,
  ...['env', 'watch', 'parallel', 'flock', 'entr', 'bwrap', 'nix-shell'],
  ...TERMINAL_WRAPPERS,
  ...JOB_WRAPPERS,
  ...ENVIRONMENT_PROGRAMS,
]);

/** Options a numeric short form stands for (`nice -5`, and `nice --5` for -5). */
function isNumericOption(text: string): boolean {
  return /^--?[0-9]+$/.test(text);
}

const KNOWN_OPTIONS = new WeakMap<WrapperGrammar, readonly string[]>();

/** Every option name a grammar knows (worked out once per grammar). */
function knownOptions(grammar: WrapperGrammar): readonly string[] {
  let known = KNOWN_OPTIONS.get(grammar);
  if (known === undefined) {
    known = [
      ...grammar.valued,
      ...(grammar.flags ?? []),
      ...(grammar.lookupOnly ?? []),
      ...(grammar.idle ?? []),
      ...(grammar.outputs ?? []),
      ...(grammar.runsCode ?? []),
    ];
    KNOWN_OPTIONS.set(grammar, known);
  }
  return known;
}

/**
 * The long option `name` abbreviates (getopt_long takes any unambiguous
 * prefix: `sudo --us root CMD` is `--user root`), or `name` itself.
 */
function longName(name: string, grammar: WrapperGrammar): string {
  const known = knownOptions(grammar);
  if (name === '' || known.includes(name)) return name;
  return known.find((option) => option.length > 1 && option.startsWith(name)) ?? name;
}

/** What the options before a wrapper's command say. */
interface SkippedOptions {
  /** The first word after the options. */
  readonly index: number;
  /** An option makes it run no command. */
  readonly lookup: boolean;
  /** Only options that do nothing without a command were given. */
  readonly idle: boolean;
  /** An output option names a file. */
  readonly writes: boolean;
  /** An option the grammar does not know: it may take the next word as its value. */
  readonly unknownOption: boolean;
  /** The values of options that are code the wrapper runs (`perf stat --pre CMD`). */
  readonly code: readonly string[];
}

/** Index of the first word after the options, and what the options say. */
function skipOptions(
  words: readonly ShellWord[],
  from: number,
  grammar: WrapperGrammar,
): SkippedOptions {
  let index = from;
  let lookup = false;
  let idle = index < words.length;
  let writes = false;
  let unknownOption = false;
  const code: string[] = [];
  const checked = grammar.flags !== undefined || grammar.attachedLongValues === true;
  const known = knownOptions(grammar);
  const note = (name: string, long: boolean) => {
    if (grammar.lookupOnly?.includes(name)) lookup = true;
    if (!grammar.idle?.includes(name)) idle = false;
    if (checked && !known.includes(name) && !(long && grammar.attachedLongValues)) {
      unknownOption = true;
    }
  };
  const output = (name: string, value: string | undefined) => {
    if (grammar.runsCode?.includes(name)) code.push(value ?? '');
    if (grammar.outputs?.includes(name) && value !== undefined && !writesNoFile(value)) {
      writes = true;
    }
  };
  const result = () => ({ index, lookup, idle, writes, unknownOption, code });
  while (index < words.length) {
    const text = words[index]!.text;
    if (text === '--') {
      index++;
      return result();
    }
    if (!text.startsWith('-') || text === '-' || isNumericOption(text)) {
      if (isNumericOption(text)) {
        idle = false;
        index++;
        continue;
      }
      break;
    }
    if (text.startsWith('--')) {
      const name = longName(text.slice(2).split('=')[0]!, grammar);
      note(name, true);
      const separate = grammar.valued.includes(name) && !text.includes('=');
      output(name, separate ? words[index + 1]?.text : text.slice(text.indexOf('=') + 1));
      index += separate ? 2 : 1;
      continue;
    }
    index++;
    for (let at = 1; at < text.length; at++) {
      const letter = text[at]!;
      note(letter, false);
      if (grammar.valued.includes(letter)) {
        output(letter, at === text.length - 1 ? words[index]?.text : text.slice(at + 1));
        if (at === text.length - 1) index++;
        break;
      }
    }
  }
  return result();
}

/** env's long options taking a value; any unambiguous prefix is accepted too (`--split=...`). */
const ENV_VALUED_LONG = ['--unset', '--chdir', '--split-string', '--argv0'];
/** env's short options taking a value, given apart (`-u NAME`) or attached (`-uNAME`); `-a` is coreutils 9.5's `--argv0`. */
const ENV_VALUED_SHORT = new Set(['u', 'C', 'P', 'S', 'a']);

/** env's long options taking no value (the signal ones take theirs after `=` only). */
const ENV_FLAGS_LONG = [
  ...['--ignore-environment', '--null', '--debug', '--default-signal', '--ignore-signal'],
  ...['--block-signal', '--list-signal-handling', '--help', '--version'],
];

/** The full name of env's long option `text` abbreviates (GNU getopt accepts prefixes). */
function envLongOption(text: string): string | undefined {
  const name = text.split('=')[0]!;
  if (name.length < 3) return undefined;
  return ENV_VALUED_LONG.find((option) => option.startsWith(name));
}

/**
 * The command line of `env -S STRING [ARGS]`: the string (attached to the
 * option word at `option`, or the word after it), split, with the words after it.
 * env's `\_` separates words as a space does (`rm\_-rf\_x` runs `rm -rf x`);
 * the shell would read it as `_`, so it is read as a space.
 */
function splitString(args: readonly ShellWord[], option: number, attached?: string): Unwrapped {
  const next = attached === undefined ? option + 2 : option + 1;
  const text = attached ?? args[option + 1]?.text ?? '';
  const value = text.replace(/\\(.)/gs, (pair, char: string) => (char === '_' ? ' ' : pair));
  const rest = args.slice(next).map((word) => word.text);
  const dynamic = args.slice(option).some((word) => word.dynamic);
  return { kind: 'line', line: [value, ...rest].join(' '), dynamic };
}

/**
 * `env [-i] [-u NAME] [-C DIR] [-S STRING] [NAME=value]... [command]`. `-S`
 * may be attached (`-S'rm -rf y'`), end a cluster (`-iS'...'`) or be written
 * `--split-string=` or any prefix of it: each splits its string into the command.
 */
function unwrapEnv(args: readonly ShellWord[], from: number): Unwrapped {
  let index = from;
  let unknownOption = false;
  while (index < args.length) {
    const text = args[index]!.text;
    if (text === '--') {
      index++;
      break;
    }
    // A lone `-` is `-i`: it empties the environment and the command follows.
    if (text === '-') {
      index++;
      continue;
    }
    if (text.startsWith('--')) {
      const long = envLongOption(text);
      if (long === '--split-string') {
        const equals = text.indexOf('=');
        return splitString(args, index, equals < 0 ? undefined : text.slice(equals + 1));
      }
      if (
        long === undefined &&
        !ENV_FLAGS_LONG.some((flag) => flag.startsWith(text.split('=')[0]!))
      ) {
        unknownOption = true;
      }
      index += long !== undefined && !text.includes('=') ? 2 : 1;
    } else if (text.startsWith('-')) {
      for (let at = 1; at < text.length; at++) {
        if (!ENV_VALUED_SHORT.has(text[at]!)) {
          if (!'i0v'.includes(text[at]!)) unknownOption = true;
          continue;
        }
        const attached = at + 1 < text.length ? text.slice(at + 1) : undefined;
        if (text[at] === 'S') return splitString(args, index, attached);
        // A valued letter takes the rest of the word, or the next word.
        if (attached === undefined) index++;
        break;
      }
      index++;
    } else if (text.includes('=')) {
      // env sets any word holding `=` (`a-b=c`, `BASH_FUNC_f%%=() {...}`), not only shell names.
      index++;
    } else break;
  }
  const splits = splitsBefore(args, from, index);
  if (index >= args.length) {
    return { kind: 'no_command', tag: unknownOption || splits ? 'unknown' : 'read' };
  }
  // An option env does not list may take the command's first word as its value.
  return { kind: 'words', from: index, ...uncertainStart(unknownOption, splits) };
}

/** How xargs adds what it reads to its command: appended, and in place of a replacement string. */
function xargsInput(words: readonly ShellWord[], from: number, start: number) {
  const replacement = xargsReplacement(words, from, start);
  return { appendsInput: true as const, ...(replacement === null ? {} : { replacement }) };
}

/**
 * The grammar of wrapper `program` whose options start at `words[from]`,
 * and where they start: after its verb for one that has verbs (`perf stat`).
 */
function grammarOf(program: string, words: readonly ShellWord[], from: number) {
  if (program === 'runuser') return runsDirectly(words, from) ? { grammar: RUNUSER, from } : null;
  const grammar = wrapperGrammar(program);
  if (grammar !== undefined) return { grammar, from };
  const at = verbIndex(program, words, from);
  const verb = at < 0 ? undefined : words[at];
  const ofVerb = verb === undefined || verb.dynamic ? undefined : verbGrammar(program, verb.text);
  return ofVerb === undefined ? null : { grammar: ofVerb, from: at + 1 };
}

/**
 * Strips one wrapper (`sudo`, `env`, `timeout`, `nice`, `xargs`, ...) whose
 * arguments start at `words[from]`, and says what it runs; null when
 * `program` is no wrapper.
 */
export function unwrap(
  program: string,
  words: readonly ShellWord[],
  from: number,
): Unwrapped | null {
  if (program === 'env') return unwrapEnv(words, from);
  const later =
    laterWrapper(program, words, from) ??
    packageRunner(program, words, from) ??
    environmentRunner(program, words, from) ??
    sandboxWrapper(program, words, from) ??
    terminalWrapper(program, words, from) ??
    jobWrapper(program, words, from) ??
    nodeWrapper(program, words, from);
  if (later !== null) return later;
  const chosen = grammarOf(program, words, from);
  if (chosen === null) return null;
  const { grammar } = chosen;
  const read = skipOptions(words, chosen.from, grammar);
  const { index, lookup, idle, writes, unknownOption } = read;
  if (lookup) return { kind: 'no_command', tag: 'read' };
  const start = index + (grammar.leadingOperands ?? 0);
  if (start >= words.length) {
    // xargs with no command runs echo; `sudo -k` alone forgets the cached password.
    return { kind: 'no_command', tag: idle && !unknownOption ? 'read' : grammar.alone };
  }
  // `sudo -e` edits files; an output option (`strace -o FILE`) writes one.
  const edits =
    program === 'sudo' && words.slice(from, index).some((word) => /^-\w*e/.test(word.text));
  const tags: ActionTag[] = [...(grammar.tags ?? [])];
  // Code an option names (`perf stat --pre 'rm -rf y'`) is read as a line, and is unknown too.
  if (read.code.length > 0) tags.push('unknown');
  // The words from `start` are read as the command; a word before it that bash splits
  // (`nice -n$N ls`) may carry another command, and an option the grammar does not list
  // may take the next word as its value (`sudo --new-opt ls rm -rf x`): what runs is not read.
  tags.push(...(uncertainStart(unknownOption, splitsBefore(words, from, start)).tags ?? []));
  return {
    kind: 'words',
    // `sudo -e FILE...` edits the files as sudoedit does: it runs no command.
    from: edits ? words.length : start,
    ...(edits || writes ? { write: true } : {}),
    ...(tags.length > 0 ? { tags } : {}),
    ...(program === 'xargs' ? xargsInput(words, from, start) : {}),
    ...(read.code.length > 0 ? { lines: read.code } : {}),
  };
}
