/*
 * Where a granted MCP call's time goes, across the four processes of its path: this process (the
 * MCP client, raw JSON-RPC lines), `airlock gateway mcp --stdio`, the kernel (SQLite, full
 * durability, a process of its own) and the real filesystem server behind the gateway. After
 * WARMUP calls it attaches `perf trace` to the four processes, makes CALLS calls of
 * `read_text_file` with 20 ms between them (a client's model taking its turn), and cuts each call
 * at the system calls that carry it from one process to the next (the reads and writes of its
 * lines and requests, the kernel's fsync): the median of each segment, in ms. Tracing slows every
 * system call a little, so the whole call is slower here than in bench:mcp-floor; the segments are
 * what to compare.
 * Run: pnpm --filter @airlock/tests trace:mcp-path   (CALLS=200, WARMUP=800; needs Linux's `perf`
 * with `perf trace`, and the right to trace these processes: root, or perf_event_paranoid <= 1)
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { KernelApi } from '@airlock/mcp';
import { filesystemFolder, gatewaySession, READ } from './floor/gateway-fixture.js';
import type { LineSession } from './floor/line-session.js';
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

const { dir, server: serverCommand } = filesystemFolder('airlock-trace-mcp-');
const output = join(dir, 'perf.txt');
const kernel = await forkKernel({ inbox: false });
let gateway: LineSession | null = null;
let perf: ChildProcess | null = null;
try {
  await new KernelApi({ url: kernel.url, token: kernel.workspace.tokens.agent }).putProfile({
    approval_mode: 'rules',
    approval_rules: [{ tool: 'fs__read_*', verdict: 'allow' }],
  });
  gateway = gatewaySession(kernel, serverCommand);
  await gateway.start();
  for (let i = 0; i < WARMUP; i += 1) await gateway.call(READ.gatewayTool, READ.input);
  // The filesystem server is the gateway's one child.
  const server = Number(
    execFileSync('pgrep', ['-P', String(gateway.pid)])
      .toString()
      .trim(),
  );
  const processes = {
    client: process.pid,
    gateway: gateway.pid!,
    kernel: kernel.pid!,
    server,
  };
  const pids = Object.values(processes).join(',');
  perf = spawn(
    'perf',
    ['trace', '-T', '-p', pids, '-e', 'read,write,writev,fsync,fdatasync', '-o', output],
    { stdio: 'ignore' },
  );
  // perf prints nothing when it is ready: give it a moment to attach.
  await sleep(1500);
  for (let i = 0; i < CALLS; i += 1) {
    await sleep(GAP_MS);
    await gateway.call(READ.gatewayTool, READ.input);
  }
  await sleep(200);
  const stopped = new Promise((resolve) => perf?.once('exit', resolve));
  perf.kill('SIGINT');
  await stopped;
  perf = null;
  const segments = callSegments(parseTrace(readFileSync(output, 'utf8')), processes);
  console.log(
    `a granted read_text_file through the gateway, ${segments.length} of ${CALLS} calls found in the trace, ${GAP_MS} ms between calls, node ${process.version}; median ms per segment:`,
  );
  SEGMENTS.forEach((label, i) => {
    console.log(
      `${median(segments.map((call) => call[i]!))
        .toFixed(3)
        .padStart(8)}  ${label}`,
    );
  });
  const whole = segments.map((call) => call.reduce((sum, ms) => sum + ms, 0));
  console.log(`${median(whole).toFixed(3).padStart(8)}  the whole call`);
} finally {
  perf?.kill('SIGKILL');
  await gateway?.close();
  await kernel.close();
  rmSync(dir, { recursive: true, force: true });
}
