/**
 * Programs that run a command in a terminal session or under a debugger:
 * `screen [-dm] CMD`, `tmux new-session|new-window|split-window|run-shell...
 * CMD` and `tmux send-keys` (keys typed into a shell), and `gdb --args CMD`.
 * The command they run is read; what the session or debugger does besides
 * (a shell already running in the pane, gdb's own commands) is not, so the
 * command is `unknown` too where that may matter.
 */
import type { ShellWord } from './lexed-line.js';
import type { Unwrapped } from './unwrapped.js';
import { argvLine } from './word-text.js';

/** screen's options that take a value, the rest of the word or the next one. */
const SCREEN_VALUED = 'cehpsStT';
/** screen's options that take none (`-fn`, `-fa` and `-ln` read as their letters). */
const SCREEN_FLAGS = 'aAdDfilLmnOqQrRUx';

/**
 * `screen [OPTIONS] [CMD [ARGS]]` starts a session running CMD (detached with
 * `-dm`). `-ls`, `-list`, `-wipe` and `-v` run nothing; `-r`, `-x` and `-d`
 * without `-m` act on a running session; `-X` sends a running session a
 * command (`stuff` types text into its shell): those are `unknown`, and the
 * text typed or the program a `screen` command starts is read.
 */
function screen(words: readonly ShellWord[], from: number): Unwrapped {
  let index = from;
  const seen = new Set<string>();
  let unknownOption = false;
  while (index < words.length) {
    const text = words[index]!.text;
    if (text === '--') {
      index++;
      break;
    }
    if (!text.startsWith('-') || text === '-') break;
    index++;
    if (['-ls', '-list', '-wipe', '-v', '-version', '--version'].includes(text)) {
      return { kind: 'no_command', tag: 'read' };
    }
    if (text === '-Logfile') {
      index++;
      continue;
    }
    for (let at = 1; at < text.length; at++) {
      const letter = text[at]!;
      seen.add(letter);
      if (SCREEN_VALUED.includes(letter)) {
        if (at === text.length - 1) index++;
        break;
      }
      if (!SCREEN_FLAGS.includes(letter) && letter !== 'X') unknownOption = true;
    }
  }
  const unknown = unknownOption ? { tags: ['unknown' as const] } : {};
  if (seen.has('X')) return sentToSession(words, index);
  const attaches = ['r', 'x', 'd', 'D'].some((letter) => seen.has(letter)) && !seen.has('m');
  if (attaches || index >= words.length) return { kind: 'no_command', tag: 'unknown' };
  return { kind: 'words', from: index, ...unknown };
}

/** `screen -X COMMAND ARGS`: `stuff TEXT` types TEXT, `screen CMD` opens a window running CMD. */
function sentToSession(words: readonly ShellWord[], index: number): Unwrapped {
  const verb = words[index]?.text;
  const rest = words.slice(index + 1);
  if (verb === 'stuff') return typed(rest.map((word) => word.text).join(''));
  if (verb === 'screen' && rest.length > 0) {
    return { kind: 'line', line: argvLine(rest.map((word) => word.text)), dynamic: true };
  }
  return { kind: 'no_command', tag: 'unknown' };
}

/** Text typed into a shell: read as a line, and `unknown` (what the shell already holds is not seen). */
function typed(text: string): Unwrapped {
  return { kind: 'line', line: text, dynamic: true, note: 'types into a running shell' };
}

/** One tmux command that runs a shell command: its options, and where the command is. */
interface TmuxCommand {
  readonly flags: string;
  readonly valued: string;
  /** How its operands run: a shell command, keys typed into a pane, or tmux commands. */
  readonly runs: 'shell' | 'keys' | 'tmux';
}

const NEW_SESSION: TmuxCommand = { flags: 'AdDEPX', valued: 'ceFfnstxy', runs: 'shell' };
const NEW_WINDOW: TmuxCommand = { flags: 'abdkPS', valued: 'ceFnt', runs: 'shell' };
const SPLIT_WINDOW: TmuxCommand = { flags: 'bdefhIPvZ', valued: 'ceFlpt', runs: 'shell' };
const RESPAWN: TmuxCommand = { flags: 'k', valued: 'cet', runs: 'shell' };
const RUN_SHELL: TmuxCommand = { flags: 'b', valued: 'dt', runs: 'shell' };
const PIPE_PANE: TmuxCommand = { flags: 'IOo', valued: 't', runs: 'shell' };
const POPUP: TmuxCommand = { flags: 'BCE', valued: 'bcdehsStTwxy', runs: 'shell' };
const SEND_KEYS: TmuxCommand = { flags: 'FHKlMRX', valued: 'cNt', runs: 'keys' };
/** Commands whose operands are tmux commands or an untyped template: not read. */
const RUNS_TMUX: TmuxCommand = { flags: '', valued: '', runs: 'tmux' };

const TMUX_COMMANDS: Readonly<Record<string, TmuxCommand>> = {
  'new-session': NEW_SESSION,
  new: NEW_SESSION,
  'new-window': NEW_WINDOW,
  neww: NEW_WINDOW,
  'split-window': SPLIT_WINDOW,
  splitw: SPLIT_WINDOW,
  'respawn-pane': RESPAWN,
  respawnp: RESPAWN,
  'respawn-window': RESPAWN,
  respawnw: RESPAWN,
  'run-shell': RUN_SHELL,
  run: RUN_SHELL,
  'pipe-pane': PIPE_PANE,
  pipep: PIPE_PANE,
  'display-popup': POPUP,
  popup: POPUP,
  'send-keys': SEND_KEYS,
  send: SEND_KEYS,
  'if-shell': RUNS_TMUX,
  if: RUNS_TMUX,
  'confirm-before': RUNS_TMUX,
  confirm: RUNS_TMUX,
  'command-prompt': RUNS_TMUX,
  'display-menu': RUNS_TMUX,
  menu: RUNS_TMUX,
  'bind-key': RUNS_TMUX,
  bind: RUNS_TMUX,
  'set-hook': RUNS_TMUX,
  'source-file': RUNS_TMUX,
  source: RUNS_TMUX,
};

/** Keys send-keys names: Enter runs what was typed; the others type a blank or a control key. */
const ENTER_KEYS = new Set(['Enter', 'C-m', 'C-j', 'KPEnter']);
const KEY_NAME =
  /^([CMS]-)+\S$|^([CMS]-)*(Up|Down|Left|Right|BSpace|BTab|DC|End|Escape|F\d{1,2}|Home|IC|NPage|PageDown|PgDn|PPage|PageUp|PgUp|Space|Tab|KP\S+)$/;

/** The text send-keys types: its keys in order, key names read as the key they name (not with `-l`). */
function keysText(keys: readonly string[], literal: boolean): string {
  if (literal) return keys.join('');
  return keys
    .map((key) =>
      ENTER_KEYS.has(key) ? '\n' : key === 'Space' ? ' ' : KEY_NAME.test(key) ? '\n' : key,
    )
    .join('');
}

/** tmux's options that take a value (`-c` is a shell command it runs); the others take none. */
const TMUX_VALUED = 'cfLST';

/**
 * `tmux [OPTIONS] [COMMAND [FLAGS] [ARGS]] [; COMMAND...]`: the shell
 * commands its commands run, each as a line (one word runs through the
 * shell, several run as they are); keys `send-keys` types are read as a
 * line too. Without a command tmux starts a shell: `unknown`, as is any
 * command it does not list (it may run anything tmux can).
 */
function tmux(words: readonly ShellWord[], from: number): Unwrapped {
  const lines: string[] = [];
  let unknown = false;
  let index = from;
  while (index < words.length && words[index]!.text.startsWith('-')) {
    const text = words[index]!.text;
    index++;
    if (text === '--') break;
    for (let at = 1; at < text.length; at++) {
      if (!TMUX_VALUED.includes(text[at]!)) continue;
      const value = at === text.length - 1 ? words[index++]?.text : text.slice(at + 1);
      if (text[at] === 'c' && value !== undefined) lines.push(value);
      break;
    }
    if (text === '-V') return { kind: 'no_command', tag: 'read' };
  }
  if (index >= words.length && lines.length === 0) return { kind: 'no_command', tag: 'unknown' };
  while (index < words.length) {
    let end = index;
    while (end < words.length && words[end]!.text !== ';') end++;
    const read = tmuxCommand(words.slice(index, end));
    if (read === null) unknown = true;
    else {
      if (read.unknown) unknown = true;
      if (read.line !== null) lines.push(read.line);
    }
    index = end + 1;
  }
  const dynamic = unknown || words.slice(from).some((word) => word.dynamic);
  const note = unknown ? 'tmux runs what its command line does not show' : undefined;
  return { kind: 'line', line: lines.join('\n'), dynamic, ...(note ? { note } : {}) };
}

/** What one tmux command runs: a line, and whether it is unknown; null for a command not listed. */
function tmuxCommand(
  words: readonly ShellWord[],
): { line: string | null; unknown: boolean } | null {
  const name = words[0]?.text ?? '';
  const command = Object.hasOwn(TMUX_COMMANDS, name) ? TMUX_COMMANDS[name] : undefined;
  if (command === undefined || command.runs === 'tmux') return null;
  let index = 1;
  let literal = false;
  let unknown = false;
  while (index < words.length && words[index]!.text.startsWith('-')) {
    const text = words[index]!.text;
    index++;
    if (text === '--') break;
    for (let at = 1; at < text.length; at++) {
      const letter = text[at]!;
      if (letter === 'l') literal = true;
      if (command.valued.includes(letter)) {
        if (at === text.length - 1) index++;
        break;
      }
      if (!command.flags.includes(letter)) unknown = true;
    }
  }
  const operands = words.slice(index).map((word) => word.text);
  if (command.runs === 'keys') return { line: keysText(operands, literal), unknown: true };
  if (operands.length === 0) return { line: null, unknown: true };
  // `run-shell -C` and `if-shell -F` run tmux commands or formats, not the shell.
  return { line: operands.length === 1 ? operands[0]! : argvLine(operands), unknown };
}

/** gdb's options whose value is a gdb command: `shell CMD`, `!CMD` and `pipe ... | CMD` run a shell. */
const GDB_COMMAND_OPTIONS = new Set(['-ex', '--ex', '-eval-command', '--eval-command']);
const GDB_INIT_OPTIONS = new Set(['-iex', '--iex', '-init-eval-command', '--init-eval-command']);
const GDB_SHELL = /^\s*(?:shell\s|!)(.*)$/s;

/**
 * `gdb [OPTIONS] --args PROGRAM ARGS`: gdb runs PROGRAM when told to (`-ex
 * run`, its init files): it is read, and `unknown`, as is gdb given no
 * program, whose commands are not read; a `shell CMD` or `!CMD` given with
 * `-ex` is read as a line.
 */
function gdb(words: readonly ShellWord[], from: number): Unwrapped {
  const lines: string[] = [];
  for (let index = from; index < words.length; index++) {
    const text = words[index]!.text;
    if (text === '--args' || text === '-args') {
      const line = argvLine(words.slice(index + 1).map((word) => word.text));
      return { kind: 'line', line: [...lines, line].join('\n'), dynamic: true };
    }
    if (GDB_COMMAND_OPTIONS.has(text) || GDB_INIT_OPTIONS.has(text)) {
      const shell = GDB_SHELL.exec(words[index + 1]?.text ?? '');
      if (shell) lines.push(shell[1]!);
      index++;
    }
  }
  return { kind: 'line', line: lines.join('\n'), dynamic: true, note: 'gdb runs its own commands' };
}

/** The terminal and debugger wrappers, by name. */
export const TERMINAL_WRAPPERS: readonly string[] = ['screen', 'tmux', 'gdb'];

/** What `screen`, `tmux` or `gdb` runs; null for any other program. */
export function terminalWrapper(
  program: string,
  words: readonly ShellWord[],
  from: number,
): Unwrapped | null {
  if (program === 'screen') return screen(words, from);
  if (program === 'tmux') return tmux(words, from);
  if (program === 'gdb') return gdb(words, from);
  return null;
}
