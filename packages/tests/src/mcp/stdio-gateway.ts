import { type ChildProcess, type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { KernelApi } from '@airlock/mcp';
import { afterAll, beforeAll } from 'vitest';
import { REPO_ROOT } from '../docs/samples.js';
import { eventually, startTestKernel, type TestKernel } from '../support/kernel.js';
import { filesystemServer, workFolder } from './servers.js';

/** The built `airlock` binary, as a desktop client starts it. */
export const CLI = join(REPO_ROOT, 'packages/server/dist/cli.js');

/**
 * Runs the built `airlock` with `args` to its end, stdout ignored; `children`
 * keeps the process for a test file's cleanup.
 * @returns its exit code and what it wrote on stderr.
 */
export async function runAirlockCli(
  args: string[],
  env: Record<string, string>,
  children: ChildProcess[],
): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [CLI, ...args], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    stderr += String(chunk);
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { code, stderr };
}

/** The environment of `airlock gateway mcp --stdio` for the kernel's agent. */
export function gatewayEnv(kernel: TestKernel): Record<string, string> {
  return {
    ...(process.env as Record<string, string>),
    AIRLOCK_URL: kernel.url,
    AIRLOCK_WORKSPACE: kernel.workspace.id,
    AIRLOCK_EXECUTOR_TOKEN: kernel.workspace.tokens.executor,
    AIRLOCK_TOKEN: kernel.workspace.tokens.agent,
  };
}

/** The gateway's command line in front of the real filesystem server serving `dir`. */
export function gatewayArgs(dir: string, ...options: string[]): string[] {
  const { spec } = filesystemServer(dir);
  return [CLI, 'gateway', 'mcp', ...options, '--name', 'fs', '--', spec.command, ...spec.args];
}

/** A stdio gateway driven line by line, as a client that writes raw JSON-RPC would. */
export interface RawGateway {
  child: ChildProcessWithoutNullStreams;
  /** Every JSON line the gateway wrote on stdout, parsed. */
  readonly answers: Record<string, unknown>[];
  readonly stderr: () => string;
  readonly exited: Promise<number | null>;
  send(line: string): void;
  /** Waits for the answer with this id. */
  answer(id: string | number | null, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** Sends `initialize` and `notifications/initialized`. */
  initialize(): Promise<void>;
}

/** Starts `airlock gateway mcp --stdio` and reads its stdout as JSON lines. */
export function rawGateway(kernel: TestKernel, dir: string): RawGateway {
  const child = spawn(process.execPath, gatewayArgs(dir), { env: gatewayEnv(kernel) });
  const answers: Record<string, unknown>[] = [];
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += String(chunk);
    let newline = stdout.indexOf('\n');
    while (newline !== -1) {
      answers.push(JSON.parse(stdout.slice(0, newline)));
      stdout = stdout.slice(newline + 1);
      newline = stdout.indexOf('\n');
    }
  });
  child.stderr.on('data', (chunk) => {
    stderr += String(chunk);
  });
  // A gateway that already exited makes writes fail; the test reads that from `exited`.
  child.stdin.on('error', () => {});
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const gateway: RawGateway = {
    child,
    answers,
    stderr: () => stderr,
    exited,
    send: (line) => child.stdin.write(`${line}\n`),
    answer: (id, timeoutMs = 20_000) =>
      eventually(() => answers.find((a) => a.id === id), { timeoutMs }),
    async initialize() {
      gateway.send(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 'init',
          method: 'initialize',
          params: {
            protocolVersion: '2025-06-18',
            capabilities: {},
            clientInfo: { name: 'raw', version: '1' },
          },
        }),
      );
      await gateway.answer('init');
      gateway.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    },
  };
  return gateway;
}

/** What the stdio gateway tests share: a kernel granting `fs__read_*`, a work folder, and the gateways started. */
export interface GatewayFixture {
  readonly kernel: TestKernel;
  readonly dir: string;
  /** Starts a raw gateway, killed after the tests. */
  start(): RawGateway;
}

/**
 * Registers the fixture's `beforeAll` and `afterAll` in the calling
 * `describe`: a kernel whose profile grants the filesystem server's reads,
 * a work folder (`prepare` fills it), and every gateway started killed and
 * the folder removed afterwards.
 */
export function gatewayFixture(prepare?: (dir: string) => void): GatewayFixture {
  let kernel: TestKernel | undefined;
  let dir: string | undefined;
  const gateways: RawGateway[] = [];
  beforeAll(async () => {
    kernel = await startTestKernel();
    dir = workFolder();
    prepare?.(dir);
    await new KernelApi({ url: kernel.url, token: kernel.workspace.tokens.agent }).putProfile({
      approval_mode: 'rules',
      approval_rules: [{ tool: 'fs__read_*', verdict: 'allow' }],
    });
  });
  afterAll(async () => {
    for (const gateway of gateways) gateway.child.kill('SIGKILL');
    await kernel?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  return {
    get kernel() {
      if (!kernel) throw new Error('the gateway fixture is used before its beforeAll ran');
      return kernel;
    },
    get dir() {
      if (!dir) throw new Error('the gateway fixture is used before its beforeAll ran');
      return dir;
    },
    start() {
      const gateway = rawGateway(this.kernel, this.dir);
      gateways.push(gateway);
      return gateway;
    },
  };
}
