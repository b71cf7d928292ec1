import { laterWrapper } from './later-wrappers.js';
import type { ShellWord } from './shell-lexer.js';
import { writesNoFile } from './streams.js';
import type { ActionTag } from './tags.js';
import type { Unwrapped } from './unwrapped.js';

/** The options of a wrapper: those that take a value, and where its command starts. */
interface WrapperGrammar {
  /** Options taking a value (short letters or long names). */
  readonly valued: readonly string[];
  /** Operands before the command (timeout's duration). */
  readonly leadingOperands?: number;
  /** What the wrapper does when given no command. */
  readonly alone: 'read' | 'unknown';
  /** Options that make it run no command at all (`sudo -l`, `command -v`). */
  readonly lookupOnly?: readonly string[];
  /** Valued options naming a file it writes (`strace -o FILE`). */
  readonly outputs?: readonly string[];
}

const GRAMMARS: Record<string, WrapperGrammar> = {
  sudo: {
    valued: ['C', 'D', 'g', 'h', 'p', 'R', 'r', 'T', 't', 'U', 'u', 'chdir', 'user', 'group'],
    alone: 'unknown',
    lookupOnly: ['l', 'v', 'k', 'K', 'V', 'list', 'validate', 'version'],
  },
  doas: { valued: ['u', 'C'], alone: 'unknown' },
  pkexec: { valued: ['user'], alone: 'unknown', lookupOnly: ['version', 'help'] },
  timeout: { valued: ['s', 'k', 'signal', 'kill-after'], leadingOperands: 1, alone: 'unknown' },
  nice: { valued: ['n', 'adjustment'], alone: 'read' },
  nohup: { valued: [], alone: 'unknown' },
  time: { valued: ['f', 'o', 'format', 'output'], alone: 'read', outputs: ['o', 'output'] },
  command: { valued: [], alone: 'read', lookupOnly: ['v', 'V'] },
  builtin: { valued: [], alone: 'unknown' },
  exec: { valued: ['a'], alone: 'read' },
  stdbuf: { valued: ['i', 'o', 'e', 'input', 'output', 'error'], alone: 'unknown' },
  ionice: { valued: ['c', 'n', 'p', 'class', 'classdata'], alone: 'read' },
  setsid: { valued: [], alone: 'unknown' },
  chronic: { valued: [], alone: 'unknown' },
  unbuffer: { valued: [], alone: 'unknown' },
  strace: {
    valued: ['e', 'o', 'p', 's', 'u', 'E', 'I', 'P', 'a', 'b', 'X', 'O', 'S', 'output', 'trace'],
    alone: 'unknown',
    outputs: ['o', 'output'],
  },
  ltrace: {
    valued: ['e', 'o', 'p', 's', 'u', 'n', 'a', 'A', 'D', 'F', 'l', 'L', 'x', 'output'],
    alone: 'unknown',
    outputs: ['o', 'output'],
  },
  fakeroot: { valued: ['l', 's', 'i', 'lib', 'faked'], alone: 'unknown' },
  chroot: { valued: ['userspec', 'groups'], leadingOperands: 1, alone: 'unknown' },
  taskset: { valued: [], leadingOperands: 1, alone: 'read', lookupOnly: ['p', 'pid'] },
  unshare: { valued: ['S', 'G', 'setuid', 'setgid', 'root', 'wd'], alone: 'unknown' },
  nsenter: {
    valued: ['t', 'target', 'S', 'G', 'setuid', 'setgid', 'root', 'wd'],
    alone: 'unknown',
  },
  firejail: { valued: [], alone: 'unknown' },
  'xvfb-run': {
    valued: ['n', 's', 'f', 'e', 'p', 'w', 'server-num', 'server-args', 'auth-file', 'error-file'],
    alone: 'unknown',
  },
  'dbus-run-session': { valued: ['config-file', 'dbus-daemon'], alone: 'unknown' },
  caffeinate: { valued: ['t', 'w'], alone: 'read' },
  valgrind: { valued: [], alone: 'unknown' },
  catchsegv: { valued: [], alone: 'unknown' },
  'systemd-run': {
    valued: [
      ...['u', 'unit', 'p', 'property', 'E', 'setenv', 'M', 'machine', 'H', 'host', 'description'],
      ...['slice', 'uid', 'gid', 'working-directory', 'on-calendar', 'on-active', 'on-boot'],
    ],
    alone: 'unknown',
  },
  xargs: {
    valued: ['a', 'd', 'E', 'I', 'L', 'n', 'P', 's', 'max-args', 'max-procs', 'delimiter'],
    alone: 'read',
  },
};

/**
 * `runuser -u USER [--] COMMAND...` runs the command itself; without `-u`
 * (or with `-c`) runuser starts a shell, read as `su` is (later-commands.ts).
 */
const RUNUSER: WrapperGrammar = {
  valued: [
    'u',
    'user',
    'g',
    'group',
    'G',
    'supp-group',
    's',
    'shell',
    'w',
    'whitelist-environment',
  ],
  alone: 'unknown',
};

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
  ...Object.keys(GRAMMARS),
  ...['env', 'watch', 'parallel', 'flock'],
]);

/** Options a numeric short form stands for (`nice -5`). */
function isNumericOption(text: string): boolean {
  return /^-[0-9]+$/.test(text);
}

/**
 * The long option `name` abbreviates (getopt_long takes any unambiguous
 * prefix: `sudo --us root CMD` is `--user root`), or `name` itself.
 */
function longName(name: string, grammar: WrapperGrammar): string {
  const known = [...grammar.valued, ...(grammar.lookupOnly ?? []), ...(grammar.outputs ?? [])];
  if (name === '' || known.includes(name)) return name;
  return known.find((option) => option.length > 1 && option.startsWith(name)) ?? name;
}

/**
 * Index of the first word after the options; `lookup` when an option runs
 * no command; `writes` when an output option names a file.
 */
function skipOptions(
  words: readonly ShellWord[],
  from: number,
  grammar: WrapperGrammar,
): { index: number; lookup: boolean; writes: boolean } {
  let index = from;
  let lookup = false;
  let writes = false;
  const output = (name: string, value: string | undefined) => {
    if (grammar.outputs?.includes(name) && value !== undefined && !writesNoFile(value)) {
      writes = true;
    }
  };
  while (index < words.length) {
    const text = words[index]!.text;
    if (text === '--') return { index: index + 1, lookup, writes };
    if (!text.startsWith('-') || text === '-' || isNumericOption(text)) {
      if (isNumericOption(text)) {
        index++;
        continue;
      }
      break;
    }
    if (text.startsWith('--')) {
      const name = longName(text.slice(2).split('=')[0]!, grammar);
      if (grammar.lookupOnly?.includes(name)) lookup = true;
      const separate = grammar.valued.includes(name) && !text.includes('=');
      output(name, separate ? words[index + 1]?.text : text.slice(text.indexOf('=') + 1));
      index += separate ? 2 : 1;
      continue;
    }
    index++;
    for (let at = 1; at < text.length; at++) {
      const letter = text[at]!;
      if (grammar.lookupOnly?.includes(letter)) lookup = true;
      if (grammar.valued.includes(letter)) {
        output(letter, at === text.length - 1 ? words[index]?.text : text.slice(at + 1));
        if (at === text.length - 1) index++;
        break;
      }
    }
  }
  return { index, lookup, writes };
}

/** env's long options taking a value; any unambiguous prefix is accepted too (`--split=...`). */
const ENV_VALUED_LONG = ['--unset', '--chdir', '--split-string'];
/** env's short options taking a value, given apart (`-u NAME`) or attached (`-uNAME`). */
const ENV_VALUED_SHORT = new Set(['u', 'C', 'P', 'S']);

/** The full name of env's long option `text` abbreviates (GNU getopt accepts prefixes). */
function envLongOption(text: string): string | undefined {
  const name = text.split('=')[0]!;
  if (name.length < 3) return undefined;
  return ENV_VALUED_LONG.find((option) => option.startsWith(name));
}

/**
 * The command line of `env -S STRING [ARGS]`: the string (attached to the
 * option word at `option`, or the word after it), split, with the words after it.
 */
function splitString(args: readonly ShellWord[], option: number, attached?: string): Unwrapped {
  const next = attached === undefined ? option + 2 : option + 1;
  const value = attached ?? args[option + 1]?.text ?? '';
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
  while (index < args.length) {
    const text = args[index]!.text;
    if (text === '--') {
      index++;
      break;
    }
    if (text.startsWith('--')) {
      const long = envLongOption(text);
      if (long === '--split-string') {
        const equals = text.indexOf('=');
        return splitString(args, index, equals < 0 ? undefined : text.slice(equals + 1));
      }
      index += long !== undefined && !text.includes('=') ? 2 : 1;
    } else if (text.startsWith('-') && text !== '-') {
      for (let at = 1; at < text.length; at++) {
        if (!ENV_VALUED_SHORT.has(text[at]!)) continue;
        const attached = at + 1 < text.length ? text.slice(at + 1) : undefined;
        if (text[at] === 'S') return splitString(args, index, attached);
        // A valued letter takes the rest of the word, or the next word.
        if (attached === undefined) index++;
        break;
      }
      index++;
    } else if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(text)) index++;
    else break;
  }
  return index >= args.length
    ? { kind: 'no_command', tag: 'read' }
    : { kind: 'words', from: index };
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
  const later = laterWrapper(program, words, from);
  if (later !== null) return later;
  const grammar =
    program === 'runuser' ? (runsDirectly(words, from) ? RUNUSER : undefined) : GRAMMARS[program];
  if (!grammar) return null;
  const { index, lookup, writes } = skipOptions(words, from, grammar);
  if (lookup) return { kind: 'no_command', tag: 'read' };
  const start = index + (grammar.leadingOperands ?? 0);
  if (start >= words.length) {
    // xargs with no command runs echo.
    return { kind: 'no_command', tag: grammar.alone };
  }
  // `sudo -e` edits files; an output option (`strace -o FILE`) writes one.
  const edits =
    program === 'sudo' && words.slice(from, index).some((word) => /^-\w*e/.test(word.text));
  const tags: ActionTag[] = program === 'systemd-run' ? ['external'] : [];
  return {
    kind: 'words',
    // `sudo -e FILE...` edits the files as sudoedit does: it runs no command.
    from: edits ? words.length : start,
    ...(edits || writes ? { write: true } : {}),
    ...(tags.length > 0 ? { tags } : {}),
  };
}
