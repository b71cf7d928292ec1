/*
 * What the MCP gateway benches share (bench-mcp-floor.ts, trace-mcp-path.ts): a folder for the real
 * filesystem server, the command that starts that server, the profile that grants its reads, and
 * the two fronts spoken to as raw JSON-RPC lines: `airlock gateway mcp --stdio` against a bench
 * kernel, and the floor's relay (floor/relay.ts), asking a record server or not.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KernelApi } from '@airlock/mcp';
import type { KernelProcess } from '../kernel-process.js';
import { LineSession } from './line-session.js';

/** How the benches start a TypeScript entry point: node with tsx, from the packages' sources. */
export const TSX = ['--conditions=source', '--import', 'tsx'];

/** The granted call the benches make, and the tool it is behind the gateway. */
export const READ = {
  tool: 'read_text_file',
  gatewayTool: 'fs__read_text_file',
  input: { path: 'src/a.txt' },
};

/** A fresh folder holding `src/a.txt`, and the filesystem server's command serving it. */
export function filesystemFolder(prefix: string): { dir: string; server: string[] } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  mkdirSync(join(dir, 'src'));
  writeFileSync(join(dir, 'src/a.txt'), 'hello');
  const entry = createRequire(import.meta.url).resolve(
    '@modelcontextprotocol/server-filesystem/dist/index.js',
  );
  return { dir, server: [process.execPath, entry, dir] };
}

/** How a bench starts the gateway: see {@link gatewaySession}. */
export interface GatewaySessionOptions {
  /** Flags of the gateway's node (a profiler's). */
  nodeArgs?: string[] | undefined;
  /** The gateway's entry point: by default this checkout's `packages/mcp/src/cli.ts`. */
  cli?: string | undefined;
}

/**
 * Starts `airlock gateway mcp --stdio` (its own process, as a desktop client starts it) in front of
 * `server`, against `kernel` with its workspace's agent and executor credentials.
 */
export function gatewaySession(
  kernel: KernelProcess,
  server: string[],
  options: GatewaySessionOptions = {},
): LineSession {
  const cli = options.cli ?? fileURLToPath(new URL('../../../mcp/src/cli.ts', import.meta.url));
  return new LineSession(
    process.execPath,
    [
      ...TSX,
      ...(options.nodeArgs ?? []),
      cli,
      'gateway',
      '--stdio',
      '--name',
      'fs',
      '--',
      ...server,
    ],
    {
      ...process.env,
      AIRLOCK_URL: kernel.url,
      AIRLOCK_WORKSPACE: kernel.workspace.id,
      AIRLOCK_EXECUTOR_TOKEN: kernel.workspace.tokens.executor,
      AIRLOCK_TOKEN: kernel.workspace.tokens.agent,
    },
  );
}

/** Declares the profile under which the kernel grants the benches' reads (`fs__read_*`). */
export async function grantReads(kernel: KernelProcess): Promise<void> {
  await new KernelApi({ url: kernel.url, token: kernel.workspace.tokens.agent }).putProfile({
    approval_mode: 'rules',
    approval_rules: [{ tool: 'fs__read_*', verdict: 'allow' }],
  });
}

/**
 * Starts the floor's relay (its own process, as the gateway runs) in front of `server`; with
 * `record`, it asks that record server before each call, as the gateway asks the kernel.
 */
export function relaySession(server: string[], record?: { url: string }): LineSession {
  const relay = fileURLToPath(new URL('./relay.ts', import.meta.url));
  return new LineSession(
    process.execPath,
    [...TSX, relay, ...server],
    record ? { ...process.env, RECORD_URL: record.url } : undefined,
  );
}
