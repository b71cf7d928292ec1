import { RISK_TRAITS, type RiskTrait } from '@airlock/core';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { listingTargetsOf } from './listing-tools.js';

// The risk traits are core's (spec 003's tool manifest); re-exported for the bridge's users.
export { RISK_TRAITS, type RiskTrait };

/**
 * Where a call's input names what it acts on: a JSON pointer and its kind. A path is read from
 * the server's root (`relative_to`), and may be a directory whose names alone the tool prints
 * (`names: 'listing'`, under the directory `under` points at), as core's ToolTarget says.
 */
export interface ManifestTarget {
  pointer: string;
  kind: 'path' | 'url';
  names?: 'listing';
  under?: string;
  relative_to?: 'server_root';
}

/** One entry of the profile's tool manifest, in the shape the kernel's `tool_manifest` takes. */
export interface ToolManifestEntry {
  name: string;
  description?: string;
  input_schema: Record<string, unknown>;
  risk_traits: RiskTrait[];
  targets?: ManifestTarget[];
  availability: 'available' | 'unavailable';
  execution: 'parallel' | 'sequential';
  /** The server says the tool is idempotent (`idempotentHint`): a lapsed claim of it may run again. */
  idempotent?: boolean;
}

/** The separator between a server's name and its tool's name: `fs__write_file`. */
export const NAME_SEPARATOR = '__';

/** The name Airlock knows an MCP tool by: the server's name, `__`, the tool's own name. */
export function prefixedName(serverName: string, toolName: string): string {
  return `${serverName}${NAME_SEPARATOR}${toolName}`;
}

/**
 * The risk traits of an MCP tool from its annotations. Each hint missing is
 * read the strictest way the MCP specification allows: not read-only,
 * destructive, open-world. A tool with no annotations at all is also read as
 * one that may execute code, since nothing is known about it.
 */
export function riskTraitsOf(annotations: Tool['annotations']): RiskTrait[] {
  if (annotations?.readOnlyHint === true) {
    return annotations.openWorldHint === false ? ['read'] : ['read', 'network'];
  }
  const traits: RiskTrait[] = ['write'];
  if (annotations?.destructiveHint !== false) traits.push('delete', 'destructive');
  if (annotations === undefined) traits.push('execute');
  if (annotations?.openWorldHint !== false) traits.push('network');
  return traits;
}

/**
 * Whether a call of this tool that its server's exit cut off may be sent
 * again to a fresh process: only when the tool says it is read-only or
 * idempotent. Any other may have acted before the exit, and a second run
 * would act twice.
 */
export function resendableAfterExit(annotations: Tool['annotations']): boolean {
  return annotations?.readOnlyHint === true || annotations?.idempotentHint === true;
}

// A list of paths goes by the plural (mcp-server-git's git_add names the files it stages `files`).
const PATH_PROPERTY =
  /^(paths?|files?|filenames?|file_paths?|filepaths?|dirs?|directory|directories|source|destination|target)$|(_paths?|Paths?)$/;
const URL_PROPERTY = /^(url|uri|href)$|(_url|Url|_uri|Uri)$/;

/**
 * The targets of a tool: its top-level string (or string array) input
 * properties whose names say they hold a path or a URL. An MCP server reads a
 * relative path from its own root (the filesystem server: its first allowed
 * directory), never the agent's working directory, so each path says so.
 */
export function targetsOf(inputSchema: Tool['inputSchema']): ManifestTarget[] {
  const targets: ManifestTarget[] = [];
  for (const [property, schema] of Object.entries(inputSchema.properties ?? {})) {
    const type = (schema as { type?: unknown; items?: { type?: unknown } } | null) ?? {};
    const holdsText =
      type.type === 'string' || (type.type === 'array' && type.items?.type === 'string');
    if (!holdsText) continue;
    const pointer = `/${property.replaceAll('~', '~0').replaceAll('/', '~1')}`;
    if (PATH_PROPERTY.test(property))
      targets.push({ pointer, kind: 'path', relative_to: 'server_root' });
    else if (URL_PROPERTY.test(property) || property === 'urls')
      targets.push({ pointer, kind: 'url' });
  }
  return targets;
}

/**
 * The manifest entries of one MCP server's tools: names prefixed with the
 * server's name, input schemas as declared, annotations mapped to risk
 * traits, path and URL targets, read-only tools run in parallel, the rest
 * one at a time. Pure: the same tool list gives the same entries.
 */
export function manifestEntries(serverName: string, tools: readonly Tool[]): ToolManifestEntry[] {
  return tools.map((tool) => {
    const traits = riskTraitsOf(tool.annotations);
    const targets = listingTargetsOf(tool) ?? targetsOf(tool.inputSchema);
    const entry: ToolManifestEntry = {
      name: prefixedName(serverName, tool.name),
      input_schema: tool.inputSchema as Record<string, unknown>,
      risk_traits: traits,
      availability: 'available',
      execution: traits.includes('write') ? 'sequential' : 'parallel',
    };
    if (tool.description !== undefined) entry.description = tool.description;
    if (targets.length > 0) entry.targets = targets;
    if (tool.annotations?.idempotentHint === true) entry.idempotent = true;
    return entry;
  });
}
