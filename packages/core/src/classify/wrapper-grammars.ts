/**
 * The option grammars of the wrappers whose command is the rest of their
 * words (`sudo`, `timeout`, `xargs`...): which options take a value, which
 * take none, which run no command.
 */

import { PROCESS_WRAPPER_GRAMMARS } from './process-wrapper-grammars.js';
import { TOOL_WRAPPER_GRAMMARS, VERB_GLOBALS, VERB_GRAMMARS } from './tool-wrapper-grammars.js';
import type { WrapperGrammar } from './wrapper-grammar.js';

const GRAMMARS: Readonly<Record<string, WrapperGrammar>> = {
  sudo: {
    valued: [
      ...['C', 'D', 'g', 'h', 'p', 'R', 'r', 'T', 't', 'U', 'u', 'chdir', 'user', 'group'],
      ...['close-from', 'host', 'prompt', 'chroot', 'role', 'type', 'command-timeout'],
      'other-user',
    ],
    flags: [
      ...['A', 'B', 'b', 'E', 'H', 'i', 'n', 'P', 'S', 's', 'N', 'askpass', 'background'],
      ...['bell', 'preserve-env', 'set-home', 'login', 'non-interactive', 'preserve-groups'],
      ...['stdin', 'shell', 'help', 'e', 'edit'],
    ],
    alone: 'unknown',
    lookupOnly: ['l', 'v', 'K', 'V', 'list', 'validate', 'version', 'remove-timestamp'],
    idle: ['k', 'reset-timestamp'],
  },
  doas: { valued: ['u', 'C', 'a'], flags: ['n', 's'], lookupOnly: ['L'], alone: 'unknown' },
  pkexec: {
    valued: ['user'],
    flags: ['disable-internal-agent', 'keep-cwd'],
    alone: 'unknown',
    lookupOnly: ['version', 'help'],
  },
  timeout: {
    valued: ['s', 'k', 'signal', 'kill-after'],
    flags: ['v', 'foreground', 'preserve-status', 'verbose'],
    lookupOnly: ['help', 'version'],
    leadingOperands: 1,
    alone: 'unknown',
  },
  nice: { valued: ['n', 'adjustment'], flags: [], lookupOnly: ['help', 'version'], alone: 'read' },
  nohup: { valued: [], flags: [], lookupOnly: ['help', 'version'], alone: 'unknown' },
  time: {
    valued: ['f', 'o', 'format', 'output'],
    flags: ['a', 'p', 'q', 'v', 'append', 'portability', 'quiet', 'verbose'],
    alone: 'read',
    outputs: ['o', 'output'],
  },
  command: { valued: [], flags: ['p'], alone: 'read', lookupOnly: ['v', 'V'] },
  builtin: { valued: [], flags: [], alone: 'unknown' },
  exec: { valued: ['a'], flags: ['c', 'l'], alone: 'read' },
  stdbuf: {
    valued: ['i', 'o', 'e', 'input', 'output', 'error'],
    flags: [],
    lookupOnly: ['help', 'version'],
    alone: 'unknown',
  },
  ionice: {
    valued: ['c', 'n', 'p', 'P', 'u', 'class', 'classdata', 'pid', 'pgid', 'uid'],
    flags: ['t', 'ignore'],
    alone: 'read',
  },
  setsid: { valued: [], flags: ['c', 'f', 'w', 'ctty', 'fork', 'wait'], alone: 'unknown' },
  chronic: { valued: [], flags: ['e', 'v', 'b'], alone: 'unknown' },
  // zsh's precommand modifiers and `repeat N COMMAND` run the command after them.
  noglob: { valued: [], flags: [], alone: 'unknown' },
  nocorrect: { valued: [], flags: [], alone: 'unknown' },
  repeat: { valued: [], flags: [], leadingOperands: 1, alone: 'unknown' },
  unbuffer: { valued: [], flags: ['p'], alone: 'unknown' },
  strace: {
    valued: [
      ...['e', 'o', 'p', 's', 'u', 'E', 'I', 'P', 'a', 'b', 'X', 'O', 'S', 'U', 'output'],
      ...['trace', 'env', 'user', 'attach', 'signal', 'status', 'string-limit', 'trace-path'],
      ...['columns', 'summary-sort-by', 'summary-columns', 'detach-on', 'const-print-style'],
      ...['inject', 'fault', 'abbrev', 'verbose', 'raw', 'read', 'write', 'quiet'],
    ],
    flags: [
      ...['A', 'c', 'C', 'd', 'D', 'f', 'F', 'h', 'i', 'k', 'n', 'q', 'r', 'T', 't', 'V', 'v'],
      ...['w', 'x', 'y', 'Y', 'z', 'Z', 'follow-forks', 'output-separately', 'summary-only'],
      ...['summary', 'successful-only', 'failed-only', 'syscall-times', 'relative-timestamps'],
    ],
    alone: 'unknown',
    outputs: ['o', 'output'],
  },
  ltrace: {
    valued: ['e', 'o', 'p', 's', 'u', 'n', 'a', 'A', 'D', 'F', 'l', 'L', 'x', 'w', 'output'],
    flags: ['b', 'c', 'C', 'f', 'h', 'i', 'r', 'S', 't', 'T', 'V', 'demangle', 'no-signals'],
    alone: 'unknown',
    outputs: ['o', 'output'],
  },
  fakeroot: {
    valued: ['b', 'l', 's', 'i', 'lib', 'faked'],
    flags: ['u', 'unknown-is-real', 'h', 'v', 'help', 'version'],
    alone: 'unknown',
  },
  chroot: {
    valued: ['userspec', 'groups'],
    flags: ['skip-chdir'],
    leadingOperands: 1,
    alone: 'unknown',
  },
  // `taskset -p MASK PID` changes another process: PID is read as a command, which is unknown.
  taskset: {
    valued: [],
    flags: ['a', 'c', 'p', 'all-tasks', 'cpu-list', 'pid'],
    leadingOperands: 1,
    alone: 'read',
  },
  // `chrt [options] PRIORITY COMMAND`; `chrt -p PRIORITY PID` changes another process (unknown).
  chrt: {
    valued: ['T', 'P', 'D', 'sched-runtime', 'sched-period', 'sched-deadline'],
    flags: [
      ...['a', 'b', 'd', 'f', 'i', 'o', 'r', 'R', 'v', 'p', 'all-tasks', 'batch', 'deadline'],
      ...['fifo', 'idle', 'other', 'rr', 'reset-on-fork', 'verbose', 'pid'],
    ],
    lookupOnly: ['m', 'max', 'h', 'help', 'V', 'version'],
    leadingOperands: 1,
    alone: 'unknown',
  },
  unshare: {
    valued: [
      ...['S', 'G', 'R', 'w', 'setuid', 'setgid', 'root', 'wd', 'propagation', 'setgroups'],
      ...['map-user', 'map-group', 'map-users', 'map-groups', 'monotonic', 'boottime'],
      'load-interp',
    ],
    // The namespace options take an optional value, attached with `=` only.
    flags: [
      ...['m', 'u', 'i', 'n', 'p', 'U', 'C', 'T', 'f', 'r', 'c', 'mount', 'uts', 'ipc', 'net'],
      ...['pid', 'user', 'cgroup', 'time', 'fork', 'map-root-user', 'map-current-user'],
      ...['mount-proc', 'kill-child', 'keep-caps', 'map-auto'],
    ],
    alone: 'unknown',
  },
  nsenter: {
    valued: ['t', 'target', 'S', 'G', 'setuid', 'setgid', 'root', 'wd'],
    // `-r` and `-w` take an optional value, attached only.
    flags: [
      ...['a', 'm', 'u', 'i', 'n', 'p', 'U', 'C', 'T', 'F', 'Z', 'r', 'w', 'e', 'all', 'mount'],
      ...['uts', 'ipc', 'net', 'pid', 'user', 'cgroup', 'time', 'preserve-credentials'],
      ...['no-fork', 'follow-context', 'env'],
    ],
    alone: 'unknown',
  },
  firejail: { valued: [], attachedLongValues: true, alone: 'unknown' },
  'xvfb-run': {
    valued: ['n', 's', 'f', 'e', 'p', 'w', 'server-num', 'server-args', 'auth-file', 'error-file'],
    flags: ['a', 'auto-servernum', 'h', 'help'],
    alone: 'unknown',
  },
  'dbus-run-session': {
    valued: ['config-file', 'dbus-daemon'],
    flags: ['help', 'version'],
    alone: 'unknown',
  },
  caffeinate: { valued: ['t', 'w'], flags: ['d', 'i', 'm', 's', 'u'], alone: 'read' },
  valgrind: { valued: [], attachedLongValues: true, alone: 'unknown' },
  catchsegv: { valued: [], flags: [], alone: 'unknown' },
  'systemd-run': {
    tags: ['external'],
    valued: [
      ...['u', 'unit', 'p', 'property', 'E', 'setenv', 'M', 'machine', 'H', 'host', 'description'],
      ...['slice', 'uid', 'gid', 'working-directory', 'on-calendar', 'on-active', 'on-boot'],
      ...['service-type', 'nice', 'timer-property', 'path-property', 'socket-property'],
      ...['on-startup', 'on-unit-active', 'on-unit-inactive'],
    ],
    flags: [
      ...['user', 'system', 'scope', 'wait', 'pty', 't', 'q', 'quiet', 'collect', 'G', 'P'],
      ...['pipe', 'no-block', 'r', 'remain-after-exit', 'd', 'same-dir', 'shell', 'S'],
      ...['no-ask-password', 'send-sighup'],
    ],
    alone: 'unknown',
  },
  xargs: {
    valued: [
      ...['a', 'd', 'E', 'I', 'L', 'n', 'P', 's', 'max-args', 'max-procs', 'delimiter'],
      ...['arg-file', 'process-slot-var', 'max-chars'],
    ],
    // `-e`, `-i`, `-l` and their long forms take an optional value, attached only.
    flags: [
      ...['0', 'e', 'i', 'l', 'p', 'r', 't', 'x', 'o', 'null', 'eof', 'replace', 'max-lines'],
      ...['interactive', 'no-run-if-empty', 'verbose', 'exit', 'open-tty', 'show-limits'],
    ],
    lookupOnly: ['help', 'version'],
    alone: 'read',
  },
  ...PROCESS_WRAPPER_GRAMMARS,
  ...TOOL_WRAPPER_GRAMMARS,
};

/**
 * `runuser -u USER [--] COMMAND...` runs the command itself; without `-u`
 * (or with `-c`) runuser starts a shell, read as `su` is (later-commands.ts).
 */
export const RUNUSER: WrapperGrammar = {
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

/** Names of the programs {@link wrapperGrammar} and {@link verbGrammar} know. */
export const GRAMMAR_WRAPPERS: readonly string[] = [
  ...Object.keys(GRAMMARS),
  ...Object.keys(VERB_GRAMMARS),
];

/** The grammar of wrapper `program`, or undefined (an own key only: `__proto__` is no wrapper). */
export function wrapperGrammar(program: string): WrapperGrammar | undefined {
  return Object.hasOwn(GRAMMARS, program) ? GRAMMARS[program] : undefined;
}

/**
 * Where the verb of `program` is, after its own options (`perf --no-pager
 * stat`): -1 when an option it does not list comes first.
 */
export function verbIndex(program: string, words: readonly { text: string }[], from: number) {
  const globals = Object.hasOwn(VERB_GLOBALS, program) ? VERB_GLOBALS[program] : undefined;
  let index = from;
  while (globals !== undefined && words[index]?.text.startsWith('-')) {
    const text = words[index]!.text;
    if (globals.valued.includes(text)) index += 2;
    else if (
      globals.flags.includes(text) ||
      globals.valued.some((name) => text.startsWith(`${name}=`))
    )
      index++;
    else return -1;
  }
  return index;
}

/** The grammar of `program VERB` (`perf stat`), when that verb runs a command (own keys only). */
export function verbGrammar(program: string, verb: string): WrapperGrammar | undefined {
  const verbs = Object.hasOwn(VERB_GRAMMARS, program) ? VERB_GRAMMARS[program] : undefined;
  return verbs !== undefined && Object.hasOwn(verbs, verb) ? verbs[verb] : undefined;
}
