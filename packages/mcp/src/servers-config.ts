import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { shortened, whereJsonBroke } from '@airlock/core';
import { z } from 'zod';

/** A server name: it prefixes its tools' names (`fs__read_file`), so no `__` inside. */
const SERVER_NAME = /^[A-Za-z][A-Za-z0-9-]*(_[A-Za-z0-9-]+)*$/;
/**
 * The longest server name: it prefixes every tool name, and an executor's
 * claim names up to 256 tools in one request under the kernel's body limit.
 */
const SERVER_NAME_MAX = 64;

/** How to start one MCP server over stdio. */
export const ServerSpecSchema = z.strictObject({
  // Claude Code's `.mcp.json` names each server's transport; stdio is the one the bridge starts.
  type: z.literal('stdio').optional(),
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  env: z.record(z.string(), z.string()).optional(),
  cwd: z.string().optional(),
});

/** How to start one MCP server over stdio. */
export type ServerSpec = z.infer<typeof ServerSpecSchema>;

/**
 * A file naming several MCP servers. `mcpServers` is the key desktop MCP
 * clients use, so their configuration can be reused as is.
 */
export const ServersFileSchema = z.object({
  mcpServers: z.record(z.string(), ServerSpecSchema),
});

/** A server's name and how to start it. */
export interface NamedServer {
  name: string;
  spec: ServerSpec;
}

/** A bad servers file: what is wrong, and where. */
export class ServersConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ServersConfigError';
  }
}

/**
 * Checks server names: each starts with a letter and holds letters, digits,
 * `-` and single `_` (never `__`, so no server's tools can take another's
 * names: `fs` with `x__y` and `fs__x` with `y` would both be `fs__x__y`),
 * at most {@link SERVER_NAME_MAX} characters.
 * @throws ServersConfigError naming every bad one.
 */
export function checkServerNames(names: readonly string[]): void {
  const badNames = names.filter((name) => name.length > SERVER_NAME_MAX || !SERVER_NAME.test(name));
  if (badNames.length > 0) {
    const shown = badNames.map((name) => JSON.stringify(shortened(name, 80)));
    throw new ServersConfigError(
      `invalid server name ${shown.join(', ')}: start with a letter; letters, digits, - and single _ only, at most ${SERVER_NAME_MAX} characters (the name prefixes its tools as NAME__tool)`,
    );
  }
}

/**
 * The servers of a file that desktop clients reach over the network (an entry
 * with a `url`, or a `type` other than stdio): the bridge cannot start them.
 */
function remoteServers(value: unknown): string[] {
  const servers = (value as { mcpServers?: unknown } | null)?.mcpServers;
  if (typeof servers !== 'object' || servers === null) return [];
  return Object.entries(servers)
    .filter(([, entry]) => {
      if (typeof entry !== 'object' || entry === null) return false;
      const { url, type } = entry as { url?: unknown; type?: unknown };
      return url !== undefined || (type !== undefined && type !== 'stdio');
    })
    .map(([name]) => name);
}

/**
 * Checks a parsed servers file; a relative `cwd` is resolved from the file's folder.
 * @throws ServersConfigError listing every problem.
 */
export function parseServersFile(value: unknown, baseDir: string): NamedServer[] {
  const parsed = ServersFileSchema.safeParse(value);
  if (!parsed.success) {
    const remote = remoteServers(value);
    const problems = [
      ...remote.map(
        (name) =>
          `/mcpServers/${name}: a remote server (url) cannot be bridged: the bridge starts stdio servers (command, args, env, cwd)`,
      ),
      ...parsed.error.issues
        .filter((issue) => !remote.includes(String(issue.path[1])))
        .map((issue) => `/${issue.path.join('/')}: ${issue.message}`),
    ];
    throw new ServersConfigError(`invalid servers file: ${problems.join('; ')}`);
  }
  checkServerNames(Object.keys(parsed.data.mcpServers));
  const servers = Object.entries(parsed.data.mcpServers).map(([name, { type: _, ...spec }]) => ({
    name,
    spec: spec.cwd === undefined ? spec : { ...spec, cwd: resolve(baseDir, spec.cwd) },
  }));
  if (servers.length === 0) throw new ServersConfigError('the servers file names no server');
  return servers;
}

/**
 * Reads a servers file (JSON).
 * @throws ServersConfigError when it cannot be read, is not JSON, or is invalid.
 */
export async function readServersFile(path: string): Promise<NamedServer[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ServersConfigError(`cannot read ${path}: ${(error as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    // Not the parser's message: it quotes the text around the break, maybe an inline secret.
    throw new ServersConfigError(`${path} is not JSON${whereJsonBroke(error, text)}`);
  }
  return parseServersFile(value, dirname(resolve(path)));
}

/**
 * One server from the command line (`--name fs -- command args...`).
 * @throws ServersConfigError for a bad name or an empty command.
 */
export function commandLineServer(name: string, command: readonly string[]): NamedServer {
  const [first, ...args] = command;
  return parseServersFile(
    { mcpServers: { [name]: { command: first ?? '', args } } },
    process.cwd(),
  )[0] as NamedServer;
}
