/*
 * Where a granted MCP call's time goes, across the four processes of its path: this process (the
 * MCP client, raw JSON-RPC lines), `airlock gateway mcp --stdio`, the kernel (SQLite, full
 * durability, a process of its own) and the real filesystem server behind the gateway; and beside
 * it the same call through the floor of that topology (bench-mcp-floor.ts's relay asking a record
 * server that writes and fsyncs 13 pages before each grant). For each, after WARMUP calls, it
 * attaches `perf trace` to the four processes, makes CALLS calls of `read_text_file` with 20 ms
 * between them (a client's model taking its turn), and cuts each call at the system calls that
 * carry it from one process to the next (the reads and writes of its lines and requests, the
 * fsync): the median of each segment, in ms. Tracing slows every system call a little, so the
 * whole call is slower here than in bench:mcp-floor; the segments are what to compare.
 * Run: pnpm --filter @airlock/tests trace:mcp-path   (CALLS=200, WARMUP=800; needs Linux's `perf`
 * with `perf trace`, and the right to trace these processes: root, or perf_event_paranoid <= 1)
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import {
  filesystemFolder,
  gatewaySession,
  grantReads,
  READ,
  relaySession,
} from './floor/gateway-fixture.js';
import type { LineSession } from './floor/line-session.js';
import { startRecordServer } from './floor/record.js';
import { callSegments, parseTrace, SEGMENTS } from './floor/syscall-timeline.js';
import { forkKernel } from './kernel-process.js';

const CALLS = Number(process.env.CALLS ?? 200);
const WARMUP = Number(process.env.WARMUP ?? 800);
const GAP_MS = 20;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

try {
  execFileSync('perf', ['trace', '-e', 'write', '--', 'true'], { stdio: 'ignore' });
} catch {
  console.error('trace:mcp-path needs `perf trace` (Debian: linux-perf) and the right to trace.');
  process.exit(1);
}

/**
 * Warms a session up, traces CALLS paced calls through it, and answers each call's segments.
 * `decider`: the process that grants (the kernel, or the record server).
 */
async function traceSession(
  session: LineSession,
  tool: string,
  decider: number,
  output: string,
): Promise<number[][]> {
  await session.start();
  for (let i = 0; i < WARMUP; i += 1) await session.call(tool, READ.input);
  // The filesystem server is the front process's one child.
  const server = Number(
    execFileSync('pgrep', ['-P', String(session.pid)])
      .toString()
      .trim(),
  );
  const processes = { client: process.pid, gateway: session.pid!, kernel: decider, server };
  const perf: ChildProcess = spawn(
    'perf',
    [
      ...['trace', '-T', '-p', Object.values(processes).join(',')],
      ...['-e', 'read,write,writev,fsync,fdatasync', '-o', output],
    ],
    { stdio: 'ignore' },
  );
  try {
    // perf prints nothing when it is ready: give it a moment to attach.
    await sleep(1500);
    for (let i = 0; i < CALLS; i += 1) {
      await sleep(GAP_MS);
      await session.call(tool, READ.input);
    }
    await sleep(200);
  } finally {
    const stopped = new Promise((resolve) => perf.once('exit', resolve));
    perf.kill('SIGINT');
    await stopped;
  }
  return callSegments(parseTrace(readFileSync(output, 'utf8')), processes);
}

const cell = (segments: number[][], of: (call: number[]) => number) =>
  median(segments.map(of)).toFixed(3).padStart(9);

const { dir, server } = filesystemFolder('airlock-trace-mcp-');
const kernel = await forkKernel({ inbox: false });
const record = await startRecordServer({ file: join(dir, 'record.wal') });
const sessions: LineSession[] = [];
try {
  await grantReads(kernel);
  const gateway = gatewaySession(kernel, server);
  const floor = relaySession(server, record);
  sessions.push(gateway, floor);
  const airlock = await traceSession(
    gateway,
    READ.gatewayTool,
    kernel.pid!,
    join(dir, 'airlock.txt'),
  );
  const floored = await traceSession(floor, READ.tool, record.pid!, join(dir, 'floor.txt'));
  console.log(
    `a granted read_text_file, ${GAP_MS} ms between calls, node ${process.version}; calls found in the trace: Airlock ${airlock.length} of ${CALLS}, floor ${floored.length} of ${CALLS}`,
  );
  console.log(
    'median ms per segment; for the floor, "gateway" is the relay and "kernel" the record server',
  );
  console.log(`${'Airlock'.padStart(9)}${'floor'.padStart(9)}`);
  SEGMENTS.forEach((label, i) => {
    console.log(
      `${cell(airlock, (call) => call[i]!)}${cell(floored, (call) => call[i]!)}  ${label}`,
    );
  });
  const whole = (call: number[]) => call.reduce((sum, ms) => sum + ms, 0);
  console.log(`${cell(airlock, whole)}${cell(floored, whole)}  the whole call`);
} finally {
  await Promise.all(sessions.map((session) => session.close()));
  record.close();
  await kernel.close();
  rmSync(dir, { recursive: true, force: true });
}
