/*
 * Prints what the approval stage costs an MCP call: the same granted
 * `read_text_file` on the real filesystem server, called directly over stdio
 * and through the gateway (a kernel on SQLite; the gateway's submit claims the
 * granted row for its own bridge, which runs it and commits it), two ways:
 * Streamable HTTP with gateway, kernel and client in this one process, and the
 * gateway in a process of its own on stdio, as an MCP client starts
 * `airlock gateway mcp --stdio`. The direct and stdio calls are also timed with 20 ms (untimed)
 * between two calls, where a client's model would take its turn: the gateway answers a call as
 * soon as the tool returned, and its commit goes out behind the answer.
 * Each client, gateway and server process first makes WARMUP calls (1000 by default) before its
 * calls are timed: V8 is still optimizing the kernel's and the gateway's code over their first
 * few thousand requests, and the gateway and kernel a client talks to have been up for a while.
 * Run: pnpm --filter @airlock/tests bench:mcp   (CALLS=100 by default; KERNEL=process for a
 * kernel in a process of its own, as `airlock serve` runs, and with it PROFILE=FILE for a V8 CPU
 * profile of that kernel over the stdio gateway's calls)
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KernelApi, startGateway } from '@airlock/mcp';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startTestKernel } from '../src/support/kernel.js';
import { forkKernel } from './kernel-process.js';

const CALLS = Number(process.env.CALLS ?? 100);
const WARMUP = Number(process.env.WARMUP ?? 1000);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Times CALLS calls one after another, after `warmup` untimed ones; `gapMs` (untimed) stands for
 * the model's turn between two calls.
 */
async function time(
  label: string,
  call: () => Promise<unknown>,
  options: { gapMs?: number; warmup?: number } = {},
): Promise<void> {
  const { gapMs = 0, warmup = WARMUP } = options;
  for (let i = 0; i < warmup; i += 1) await call();
  const samples: number[] = [];
  for (let i = 0; i < CALLS; i += 1) {
    if (gapMs > 0) await sleep(gapMs);
    const start = performance.now();
    await call();
    samples.push(performance.now() - start);
  }
  samples.sort((a, b) => a - b);
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))];
  console.log(
    `${label.padEnd(28)} calls ${CALLS}  median ${at(0.5)?.toFixed(1)} ms  p95 ${at(0.95)?.toFixed(1)} ms`,
  );
}

const kernel =
  process.env.KERNEL === 'process' ? await forkKernel({ inbox: false }) : await startTestKernel();
console.log(
  `granted read_text_file, node ${process.version}, kernel ${process.env.KERNEL === 'process' ? 'in a process of its own' : 'in this process'}, ${WARMUP} calls of warm-up per process`,
);
const dir = mkdtempSync(join(tmpdir(), 'airlock-bench-mcp-'));
mkdirSync(join(dir, 'src'));
writeFileSync(join(dir, 'src/a.txt'), 'hello');
const entry = createRequire(import.meta.url).resolve(
  '@modelcontextprotocol/server-filesystem/dist/index.js',
);
const arguments_ = { path: 'src/a.txt' };
try {
  const direct = new Client({ name: 'bench', version: '1' });
  await direct.connect(
    new StdioClientTransport({ command: process.execPath, args: [entry, dir], stderr: 'ignore' }),
  );
  const readDirect = () => direct.callTool({ name: 'read_text_file', arguments: arguments_ });
  await time('direct (stdio)', readDirect);
  await time('  the same, 20 ms between', readDirect, { gapMs: 20, warmup: 5 });
  await direct.close();

  await new KernelApi({ url: kernel.url, token: kernel.workspace.tokens.agent }).putProfile({
    approval_mode: 'rules',
    approval_rules: [{ tool: 'fs__read_*', verdict: 'allow' }],
  });
  const gateway = await startGateway({
    url: kernel.url,
    workspaceId: kernel.workspace.id,
    executorToken: kernel.workspace.tokens.executor,
    servers: [{ name: 'fs', spec: { command: process.execPath, args: [entry, dir] } }],
  });
  const front = await gateway.listenHttp();
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(front.url), {
      requestInit: { headers: { authorization: `Bearer ${kernel.workspace.tokens.agent}` } },
    }),
  );
  await time('gateway, HTTP, this process', () =>
    client.callTool({ name: 'fs__read_text_file', arguments: arguments_ }),
  );
  await client.close();
  await gateway.close();

  const cli = fileURLToPath(new URL('../../mcp/src/cli.ts', import.meta.url));
  /** The gateway as an MCP client starts it: `airlock gateway mcp --stdio`, a process of its own. */
  const gatewayOverStdio = async (flags: string[]) => {
    const overStdio = new Client({ name: 'bench', version: '1' });
    await overStdio.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [
          '--conditions=source',
          '--import',
          'tsx',
          cli,
          'gateway',
          '--stdio',
          ...flags,
          '--name',
          'fs',
          '--',
          process.execPath,
          entry,
          dir,
        ],
        env: {
          ...(process.env as Record<string, string>),
          AIRLOCK_URL: kernel.url,
          AIRLOCK_WORKSPACE: kernel.workspace.id,
          AIRLOCK_EXECUTOR_TOKEN: kernel.workspace.tokens.executor,
          AIRLOCK_TOKEN: kernel.workspace.tokens.agent,
        },
        stderr: 'ignore',
      }),
    );
    return overStdio;
  };
  const overStdio = await gatewayOverStdio([]);
  const readOverStdio = () =>
    overStdio.callTool({ name: 'fs__read_text_file', arguments: arguments_ });
  const profiling = 'startProfile' in kernel ? process.env.PROFILE : undefined;
  if (profiling && 'startProfile' in kernel) await kernel.startProfile();
  await time('gateway, stdio, own process', readOverStdio);
  if (profiling && 'stopProfile' in kernel) await kernel.stopProfile(profiling);
  await time('  the same, 20 ms between', readOverStdio, { gapMs: 20, warmup: 5 });
  await overStdio.close();
  const awaiting = await gatewayOverStdio(['--await-commits']);
  await time(
    '  --await-commits, 20 ms',
    () => awaiting.callTool({ name: 'fs__read_text_file', arguments: arguments_ }),
    { gapMs: 20 },
  );
  await awaiting.close();
} finally {
  await kernel.close();
  rmSync(dir, { recursive: true, force: true });
}
