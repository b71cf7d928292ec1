import { mkdirSync, mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { NamedServer } from '@airlock/mcp';

const require = createRequire(import.meta.url);

/** The real published filesystem server (a devDependency), serving `dir` as its only root. */
export function filesystemServer(dir: string, name = 'fs'): NamedServer {
  const entry = require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js');
  return { name, spec: { command: process.execPath, args: [entry, dir], cwd: dir } };
}

/** The real published memory server (a devDependency), keeping its graph in `file`. */
export function memoryServer(file: string, name = 'memory'): NamedServer {
  const entry = require.resolve('@modelcontextprotocol/server-memory/dist/index.js');
  return {
    name,
    spec: { command: process.execPath, args: [entry], env: { MEMORY_FILE_PATH: file } },
  };
}

/** A small MCP server built on the official SDK whose `wait` tool takes `ms` milliseconds. */
export function slowServer(name = 'slow'): NamedServer {
  const entry = fileURLToPath(new URL('./fixtures/slow-server.mjs', import.meta.url));
  return { name, spec: { command: process.execPath, args: [entry] } };
}

/** A fresh work folder with an empty `src/`. */
export function workFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-mcp-'));
  mkdirSync(join(dir, 'src'));
  return dir;
}

/**
 * A small MCP server built on the official SDK whose `dump` tool answers a text of
 * `resultBytes` bytes and, with `nestDepth`, a structuredContent nesting that deep.
 */
export function hugeResultServer(
  options: { resultBytes?: number; nestDepth?: number },
  name = 'huge',
): NamedServer {
  const entry = fileURLToPath(new URL('./fixtures/huge-result-server.mjs', import.meta.url));
  const env: Record<string, string> = { RESULT_BYTES: String(options.resultBytes ?? 0) };
  if (options.nestDepth !== undefined) env.NEST_DEPTH = String(options.nestDepth);
  return { name, spec: { command: process.execPath, args: [entry], env } };
}
