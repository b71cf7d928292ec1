/**
 * The option grammars of tools that run a command under them: a profiler
 * (`perf stat|record|trace CMD`), runit's and daemontools' process tools
 * (`chpst`, `softlimit`, `envdir`...), the readline wrapper `rlwrap` and
 * the container runner `systemd-nspawn`. Read as wrapper-grammars.ts reads
 * `sudo` or `timeout`.
 */
import type { WrapperGrammar } from './wrapper-grammar.js';

/** perf's options for every verb that runs a command (its parse-options: clusters, `--opt VALUE`, prefixes). */
const PERF_COMMON_VALUED = [...['C', 'cpu', 'D', 'delay', 'e', 'event', 'G', 'cgroup', 'o']];
const PERF_COMMON_FLAGS = ['a', 'all-cpus', 'v', 'verbose', 'no-inherit'];
const PERF_COMMON = {
  lookupOnly: ['h', 'help'],
  outputs: ['o', 'output'],
  alone: 'unknown',
} as const;

/** `perf stat [opts] CMD`: `--pre` and `--post` run a command line perf does not show. */
const PERF_STAT: WrapperGrammar = {
  ...PERF_COMMON,
  valued: [
    ...PERF_COMMON_VALUED,
    ...['output', 'p', 'pid', 'I', 'interval-print', 'M', 'metrics', 'r', 'repeat', 't', 'tid'],
    ...['x', 'field-separator', 'control', 'cputype', 'filter', 'for-each-cgroup', 'log-fd'],
    ...['interval-count', 'td-level', 'timeout', 'pre', 'post'],
  ],
  runsCode: ['pre', 'post'],
  flags: [
    ...PERF_COMMON_FLAGS,
    ...['A', 'no-aggr', 'B', 'big-num', 'd', 'detailed', 'g', 'group', 'i', 'j', 'json-output'],
    ...['n', 'null', 'S', 'sync', 'T', 'transaction', 'all-kernel', 'all-user', 'append'],
    ...['hybrid-merge', 'interval-clear', 'metric-no-group', 'metric-no-merge', 'metric-only'],
    ...['no-csv-summary', 'no-merge', 'per-core', 'per-die', 'per-node', 'per-socket'],
    ...['per-thread', 'percore-show-thread', 'quiet', 'scale', 'smi-cost', 'summary', 'table'],
    ...['topdown', 'iostat'],
  ],
};

/** `perf record [opts] CMD` writes its samples to `perf.data` unless `-o` names another file. */
const PERF_RECORD: WrapperGrammar = {
  ...PERF_COMMON,
  tags: ['write'],
  valued: [
    ...PERF_COMMON_VALUED,
    ...['output', 'c', 'count', 'F', 'freq', 'j', 'branch-filter', 'k', 'clockid', 'm'],
    ...['mmap-pages', 'p', 'pid', 'r', 'realtime', 't', 'tid', 'u', 'uid', 'affinity'],
    ...['call-graph', 'clang-opt', 'clang-path', 'control', 'filter', 'max-size', 'mmap-flush'],
    ...['num-thread-synthesize', 'proc-map-timeout', 'switch-max-files', 'switch-output-event'],
    ...['synth', 'vmlinux'],
  ],
  flags: [
    ...PERF_COMMON_FLAGS,
    ...['b', 'branch-any', 'B', 'no-buildid', 'd', 'data', 'g', 'i', 'N', 'no-buildid-cache'],
    ...['n', 'no-samples', 'P', 'period', 'q', 'quiet', 'R', 'raw-samples', 's', 'stat', 'T'],
    ...['timestamp', 'W', 'weight', 'all-cgroups', 'all-kernel', 'all-user', 'buildid-all'],
    ...['buildid-mmap', 'code-page-size', 'data-page-size', 'dry-run', 'exclude-perf', 'group'],
    ...['kcore', 'kernel-callchains', 'namespaces', 'no-bpf-event', 'no-buffering', 'off-cpu'],
    ...['overwrite', 'per-thread', 'phys-data', 'running-time', 'sample-cpu', 'strict-freq'],
    ...['sample-identifier', 'switch-events', 'tail-synthesize', 'timestamp-boundary'],
    ...['timestamp-filename', 'transaction', 'user-callchains'],
    // Their values are optional, attached only (`-Iax`, `--switch-output=1G`).
    ...['I', 'intr-regs', 'S', 'snapshot', 'z', 'compression-level', 'aio', 'aux-sample'],
    ...['debuginfod', 'switch-output', 'threads', 'user-regs'],
  ],
};

/** `perf trace [opts] CMD`. */
const PERF_TRACE: WrapperGrammar = {
  ...PERF_COMMON,
  valued: [
    ...PERF_COMMON_VALUED,
    ...['output', 'F', 'pf', 'i', 'input', 'm', 'mmap-pages', 'p', 'pid', 't', 'tid', 'u'],
    ...['uid', 'call-graph', 'duration', 'expr', 'filter', 'filter-pids', 'map-dump'],
    ...['max-events', 'max-stack', 'min-stack', 'proc-map-timeout', 'switch-off', 'switch-on'],
  ],
  flags: [
    ...PERF_COMMON_FLAGS,
    ...['f', 'force', 's', 'summary', 'S', 'with-summary', 'T', 'time', 'comm', 'failure'],
    ...['errno-summary', 'kernel-syscall-graph', 'libtraceevent_print', 'print-sample', 'sched'],
    ...['show-on-off-events', 'sort-events', 'syscalls', 'tool_stats'],
  ],
};

/** Options before the verb, each taking no value or (`--debug`) the next word: `perf --no-pager stat CMD`. */
export const VERB_GLOBALS: Readonly<Record<string, { flags: string[]; valued: string[] }>> = {
  perf: {
    flags: ['--no-pager', '-P', '--paginate', '-p', '-v', '-vv', '-vvv'],
    valued: ['--debug', '--buildid-dir'],
  },
};

/** The grammars of wrappers that take a verb first, by program and verb. */
export const VERB_GRAMMARS: Readonly<Record<string, Readonly<Record<string, WrapperGrammar>>>> = {
  perf: { stat: PERF_STAT, record: PERF_RECORD, trace: PERF_TRACE },
};

/** A tool that runs its command after one operand (`envdir DIR CMD`). */
const AFTER_OPERAND: WrapperGrammar = {
  valued: [],
  flags: [],
  leadingOperands: 1,
  alone: 'unknown',
};

/** The grammars, by program name. */
export const TOOL_WRAPPER_GRAMMARS: Readonly<Record<string, WrapperGrammar>> = {
  // systemd's `run0 [OPTIONS] [CMD...]` runs CMD as another user, as sudo does; alone it starts a shell.
  run0: {
    valued: [
      ...['u', 'user', 'g', 'group', 'D', 'chdir', 'machine', 'property', 'description'],
      ...['slice', 'nice', 'setenv', 'background', 'unit', 'shell-prompt-prefix', 'area'],
      'lightweight',
    ],
    flags: ['no-ask-password', 'slice-inherit', 'via-shell', 'i', 'pty', 'pipe'],
    lookupOnly: ['h', 'help', 'version'],
    alone: 'unknown',
  },
  // moreutils: `ifne [-n] CMD` runs CMD when its input is not empty; `lckdo LOCK CMD` under a lock.
  ifne: { valued: [], flags: ['n'], alone: 'unknown' },
  lckdo: {
    valued: ['W', 'E'],
    flags: ['w', 'e', 'n', 'q', 's'],
    leadingOperands: 1,
    alone: 'unknown',
  },
  zrun: { valued: [], flags: [], alone: 'unknown' },
  // `nq [-c] [-q] CMD` queues CMD to run in the background; `-w` and `-t` wait for or test the queue.
  nq: { valued: [], flags: ['c', 'q'], lookupOnly: ['w', 't', 'h'], alone: 'unknown' },
  // `proot [OPTIONS] [CMD...]` runs CMD with another root and binds; alone it starts a shell.
  proot: {
    valued: [
      ...['r', 'rootfs', 'b', 'bind', 'm', 'mount', 'q', 'qemu', 'w', 'pwd', 'cwd', 'k'],
      ...['kernel-release', 'i', 'v', 'verbose', 'p', 'port'],
    ],
    flags: ['0', 'root-id', 'R', 'S', 'n', 'netcoop', 'kill-on-exit', 'l', 'link2symlink'],
    lookupOnly: ['h', 'help', 'V', 'version', 'about'],
    alone: 'unknown',
  },
  // `schroot [-c CHROOT] [-u USER] [--] [CMD...]`; listing and session verbs run no command.
  schroot: {
    valued: [...['c', 'chroot', 'u', 'user', 'd', 'directory', 'n', 'session-name'], 'o'],
    flags: ['p', 'preserve-environment', 'q', 'quiet', 'v', 'verbose', 'a', 'all', 'r'],
    lookupOnly: [
      ...['l', 'list', 'i', 'info', 'b', 'begin-session', 'e', 'end-session', 'h', 'help'],
      ...['V', 'version', 'config', 'location'],
    ],
    alone: 'unknown',
  },
  // runit's `chpst [-vP012] [-u USER] [-U USER] [-b ARGV0] [-e DIR] [-/ ROOT] ... PROG`.
  chpst: {
    valued: [...['u', 'U', 'b', 'e', '/', 'C', 'n', 'l', 'L', 'm', 'd', 'o', 'p', 'f', 'c']],
    flags: ['v', 'P', '0', '1', '2'],
    alone: 'unknown',
  },
  envdir: AFTER_OPERAND,
  envuidgid: AFTER_OPERAND,
  pgrphack: { valued: [], flags: [], alone: 'unknown' },
  softlimit: {
    valued: ['a', 'c', 'd', 'f', 'l', 'm', 'o', 'p', 'r', 's', 't'],
    flags: [],
    alone: 'unknown',
  },
  setlock: { valued: [], flags: ['n', 'N', 'x', 'X'], leadingOperands: 1, alone: 'unknown' },
  // `-z FILTER` runs a filter program on what passes through; `-a`, `-m` and `-p` take theirs attached.
  rlwrap: {
    valued: [
      ...['b', 'break-chars', 'C', 'command-name', 'D', 'history-no-dupes', 'e', 'f', 'file'],
      ...['extra-char-after-completion', 'g', 'forget-matching', 'H', 'history-filename'],
      ...['l', 'logfile', 'M', 'multi-line-ext', 'O', 'only-cook', 'P', 'pre-given', 'q'],
      ...['quote-characters', 's', 'histsize', 'S', 'substitute-prompt', 't', 'set-term-name'],
      ...['w', 'wait-before-prompt', 'z', 'filter'],
    ],
    runsCode: ['z', 'filter'],
    outputs: ['l', 'logfile'],
    flags: [
      ...['A', 'ansi-colour-aware', 'c', 'complete-filenames', 'E', 'always-echo', 'i', 'I'],
      ...['case-insensitive', 'pass-sigint-as-sigterm', 'n', 'no-warnings', 'N', 'no-children'],
      ...['o', 'one-shot', 'r', 'remember', 'R', 'renice', 'U', 'mirror-arguments', 'W'],
      ...['polling', 'X', 'skip-setctty', 'a', 'always-readline', 'm', 'multi-line', 'p'],
      'prompt-colour',
    ],
    lookupOnly: ['h', 'help', 'v', 'version'],
    alone: 'unknown',
  },
  // It starts a container registered with systemd-machined, and runs the command there.
  'systemd-nspawn': {
    tags: ['external'],
    valued: [
      ...['D', 'directory', 'template', 'i', 'image', 'oci-bundle', 'u', 'user', 'M', 'machine'],
      ...['uuid', 'S', 'slice', 'property', 'network-interface', 'network-macvlan', 'p', 'port'],
      ...['network-ipvlan', 'network-bridge', 'network-zone', 'network-veth-extra', 'E'],
      ...['setenv', 'capability', 'drop-capability', 'kill-signal', 'bind', 'bind-ro', 'tmpfs'],
      ...['overlay', 'overlay-ro', 'inaccessible', 'link-journal', 'register', 'personality'],
      ...['settings', 'chdir', 'pivot-root', 'rlimit', 'oom-score-adjust', 'cpu-affinity'],
      ...['timezone', 'resolv-conf', 'console', 'hostname', 'system-call-filter', 'Z'],
      ...['selinux-context', 'L', 'selinux-apifs-context', 'notify-ready', 'root-hash'],
      ...['root-hash-sig', 'verity-data', 'load-credential', 'set-credential', 'bind-user'],
      ...['suppress-sync', 'private-users-ownership', 'image-policy', 'ambient-capability'],
      ...['no-new-privileges', 'network-namespace-path'],
    ],
    // `--private-users` and `--volatile` take an optional value, attached only.
    flags: [
      ...['b', 'boot', 'x', 'ephemeral', 'read-only', 'q', 'quiet', 'a', 'as-pid2', 'n', 'U'],
      ...['private-network', 'network-veth', 'keep-unit', 'P', 'pipe', 'private-users'],
      ...['volatile', 'no-pager'],
    ],
    lookupOnly: ['h', 'help', 'version'],
    alone: 'unknown',
  },
};
