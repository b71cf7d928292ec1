/**
 * The option grammars of more wrappers whose command is the rest of their
 * words: programs that change how a command runs (its clock, its network
 * route, its CPU share, its user, its init process) and then run it as it is.
 * Read as wrapper-grammars.ts reads `sudo` or `timeout`.
 */
import type { WrapperGrammar } from './wrapper-grammar.js';

/** proxychains (3 and 4): `-f FILE` names its configuration, `-q` quiets it. */
const PROXYCHAINS: WrapperGrammar = {
  valued: ['f'],
  flags: ['q'],
  lookupOnly: ['h', 'help'],
  alone: 'unknown',
};

/** gosu and su-exec: `gosu USER[:GROUP] COMMAND...`. */
const USER_SWITCH: WrapperGrammar = {
  valued: [],
  flags: [],
  lookupOnly: ['h', 'help', 'version'],
  leadingOperands: 1,
  alone: 'unknown',
};

/** The grammars, by program name. */
export const PROCESS_WRAPPER_GRAMMARS: Readonly<Record<string, WrapperGrammar>> = {
  // libfaketime's `faketime [-m] [-f] [-p PID] TIMESTAMP COMMAND...`.
  faketime: {
    valued: ['p', 'date-prog'],
    flags: ['m', 'f', 'exclude-monotonic', 'disable-shm'],
    lookupOnly: ['h', 'v', 'help', 'version'],
    leadingOperands: 1,
    alone: 'unknown',
  },
  proxychains: PROXYCHAINS,
  proxychains4: PROXYCHAINS,
  torsocks: {
    valued: ['u', 'p', 'a', 'P', 'user', 'pass', 'address', 'port'],
    flags: ['i', 'd', 'q', '6', 'isolate', 'debug', 'quiet', 'ipv6', 'shell'],
    lookupOnly: ['h', 'help', 'version'],
    alone: 'unknown',
  },
  tsocks: { valued: [], flags: [], alone: 'unknown' },
  // `cpulimit -p PID` or `-e EXE` limits a running process; else it runs its command.
  cpulimit: {
    valued: ['l', 'p', 'e', 'P', 'c', 's', 'limit', 'pid', 'exe', 'path', 'cpu', 'signal'],
    flags: [
      ...['i', 'z', 'v', 'k', 'r', 'q', 'b', 'f', 'm', 'include-children', 'lazy', 'verbose'],
      ...['kill', 'restore', 'quiet', 'background', 'foreground', 'monitor-forks'],
    ],
    lookupOnly: ['h', 'help'],
    alone: 'unknown',
  },
  numactl: {
    valued: [
      ...['i', 'm', 'N', 'C', 'p', 'P', 'interleave', 'membind', 'cpunodebind', 'physcpubind'],
      ...['preferred', 'preferred-many', 'weighted-interleave'],
    ],
    flags: ['l', 'a', 'b', 'localalloc', 'all', 'balancing'],
    lookupOnly: ['s', 'H', 'show', 'hardware', 'h', 'help', 'V', 'version'],
    alone: 'unknown',
  },
  cgexec: { valued: ['g'], flags: ['sticky'], lookupOnly: ['h', 'help'], alone: 'unknown' },
  trickle: {
    valued: ['d', 'u', 'w', 't', 'l', 'n'],
    flags: ['s', 'v'],
    lookupOnly: ['h', 'V'],
    alone: 'unknown',
  },
  // The resource options take their limits attached only (`--nofile=10`, `-n10` is unknown).
  prlimit: {
    valued: ['p', 'pid', 'o', 'output'],
    flags: [
      ...['c', 'd', 'e', 'f', 'i', 'l', 'm', 'n', 'q', 'r', 's', 't', 'u', 'v', 'x', 'y'],
      ...['core', 'data', 'nice', 'fsize', 'sigpending', 'memlock', 'rss', 'nofile', 'msgqueue'],
      ...['rtprio', 'stack', 'cpu', 'nproc', 'as', 'locks', 'rttime', 'noheadings', 'raw'],
      'verbose',
    ],
    lookupOnly: ['h', 'help', 'V', 'version'],
    alone: 'unknown',
  },
  setpriv: {
    valued: [
      ...['ruid', 'euid', 'rgid', 'egid', 'reuid', 'regid', 'groups', 'inh-caps', 'ambient-caps'],
      ...['bounding-set', 'securebits', 'pdeathsig', 'selinux-label', 'apparmor-profile'],
      ...['landlock-access', 'landlock-rule'],
    ],
    flags: ['nnp', 'no-new-privs', 'clear-groups', 'keep-groups', 'init-groups', 'reset-env'],
    lookupOnly: ['d', 'dump', 'h', 'help', 'V', 'version'],
    alone: 'unknown',
  },
  gosu: USER_SWITCH,
  'su-exec': USER_SWITCH,
  // daemontools' and s6's `setuidgid ACCOUNT COMMAND...`.
  setuidgid: { valued: [], flags: [], leadingOperands: 1, alone: 'unknown' },
  's6-setuidgid': { valued: [], flags: [], leadingOperands: 1, alone: 'unknown' },
  eatmydata: { valued: [], flags: [], lookupOnly: ['help', 'version'], alone: 'unknown' },
  tini: {
    valued: ['p', 'e'],
    flags: ['s', 'v', 'w', 'g'],
    lookupOnly: ['h', 'l'],
    alone: 'unknown',
  },
  'dumb-init': {
    valued: ['r', 'rewrite'],
    flags: ['c', 'single-child', 'v', 'verbose'],
    lookupOnly: ['h', 'help', 'V', 'version'],
    alone: 'unknown',
  },
  catatonit: { valued: [], flags: ['g', 'P', 'L'], lookupOnly: ['h', 'V'], alone: 'unknown' },
  // `-e` may take its variable's name attached (`-eVAR`): such a word is read as unknown letters.
  sshpass: {
    valued: ['f', 'd', 'p', 'P'],
    flags: ['v', 'e'],
    lookupOnly: ['h', 'V'],
    alone: 'unknown',
  },
  'systemd-inhibit': {
    valued: ['what', 'who', 'why', 'mode'],
    flags: ['no-pager', 'no-legend', 'no-ask-password'],
    lookupOnly: ['list', 'h', 'help', 'version'],
    alone: 'unknown',
  },
  // Its long options take their values after `=` only.
  'dbus-launch': { valued: [], attachedLongValues: true, alone: 'unknown' },
  'ssh-agent': {
    valued: ['a', 'E', 'O', 'P', 't'],
    flags: ['c', 's', 'd', 'D'],
    alone: 'unknown',
  },
  daemonize: {
    valued: ['c', 'e', 'E', 'o', 'p', 'l', 'u'],
    flags: ['a', 'v'],
    alone: 'unknown',
    outputs: ['e', 'o', 'p', 'l'],
  },
};
