import { spawnSync } from 'node:child_process';

/** The system calls the ordering check reads: the store's writes and syncs, the answers' writes. */
export const TRACED_SYSCALLS = [
  'write',
  'pwrite64',
  'writev',
  'pwritev',
  'pwritev2',
  'sendto',
  'sendmsg',
  'fsync',
  'fdatasync',
];

/**
 * The `strace` command line that records a process tree's traced calls into
 * `file`, with timestamps, file descriptors named by path (`-y`), and the
 * first bytes of each buffer.
 */
export function straceCommand(file: string): string[] {
  return [
    'strace',
    '-f',
    '-tt',
    '-y',
    '-s',
    '40',
    '--seccomp-bpf',
    '-e',
    `trace=${TRACED_SYSCALLS.join(',')}`,
    '-o',
    file,
  ];
}

/** Why `strace` cannot trace a child here (not installed, ptrace refused), or null when it can. */
export function straceSkipReason(): string | null {
  const probe = spawnSync(
    'strace',
    ['-f', '-o', '/dev/null', '--seccomp-bpf', '-e', 'trace=write', 'true'],
    {
      encoding: 'utf8',
    },
  );
  if (probe.error)
    return `strace is not installed (${probe.error.message}); Debian's strace package has it`;
  if (probe.status !== 0) return `strace cannot trace here: ${probe.stderr.trim()}`;
  return null;
}

/** What the ordering check found in a trace. */
export interface OrderingReport {
  /** HTTP answers written to a socket. */
  answers: number;
  walWrites: number;
  walSyncs: number;
  /** One line per answer written while some WAL write before it was not yet synced. */
  violations: string[];
}

interface Open {
  call: string;
  fd: string;
  line: number;
}

const CALL = /^(\d+)\s+\S+\s+(\w+)\((\d+<[^>]*>)?(.*)$/;
const RESUMED = /^(\d+)\s+\S+\s+<\.\.\. (\w+) resumed>(.*)$/;

/**
 * Reads an `strace -f -y` log and checks that every HTTP answer the traced
 * process wrote to a socket went out after an fsync/fdatasync of `walFile`
 * that finished after, and began after the end of, every write into that
 * file before the answer: no answer can report a change that is not yet on disk.
 */
export function checkAnswersAfterWalSync(trace: string, walFile: string): OrderingReport {
  const report: OrderingReport = { answers: 0, walWrites: 0, walSyncs: 0, violations: [] };
  const open = new Map<string, Open>();
  // Line numbers where unsynced WAL writes ended.
  let unsynced: number[] = [];
  const isWal = (fd: string) => fd.includes(`<${walFile}>`);
  const finish = (call: string, fd: string, startLine: number, endLine: number, rest: string) => {
    if (!/= \d+/.test(rest)) return;
    if ((call === 'fsync' || call === 'fdatasync') && isWal(fd)) {
      report.walSyncs += 1;
      // A sync covers the writes that had ended before it began.
      unsynced = unsynced.filter((ended) => ended > startLine);
    } else if ((call === 'write' || call === 'pwrite64') && isWal(fd)) {
      report.walWrites += 1;
      unsynced.push(endLine);
    }
  };
  trace.split('\n').forEach((text, line) => {
    const resumed = RESUMED.exec(text);
    if (resumed) {
      const [, pid, call, rest] = resumed;
      const started = open.get(pid!);
      open.delete(pid!);
      if (started && started.call === call) finish(call!, started.fd, started.line, line, rest!);
      return;
    }
    const found = CALL.exec(text);
    if (!found) return;
    const [, pid, call, fd = '', rest = ''] = found;
    if (fd.includes('<socket:[') && rest.includes('"HTTP/1.1 ')) {
      report.answers += 1;
      if (unsynced.length > 0) {
        report.violations.push(
          `line ${line + 1}: an answer after ${unsynced.length} unsynced WAL write(s): ${text.slice(0, 160)}`,
        );
      }
    }
    if (rest.endsWith('<unfinished ...>')) open.set(pid!, { call: call!, fd, line });
    else finish(call!, fd, line, line, rest);
  });
  return report;
}
