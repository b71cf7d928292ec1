import { matchGlob, resolveToolName } from '@airlock/core';

/** The tools a rule file's rules may name: their resolved names and, when known, input schemas. */
export interface ToolCatalog {
  /** Resolved tool names, sorted and unique. */
  readonly names: readonly string[];
  /** Input JSON Schema by tool name, for the tools that declare one. */
  readonly schemas: ReadonlyMap<string, unknown>;
}

/** A catalog, or why the `--tools` file's value is not one. */
export type ParsedCatalog = { ok: true; catalog: ToolCatalog } | { ok: false; message: string };

const SCHEMA_KEYS = ['input_schema', 'inputSchema', 'parameters'] as const;

/**
 * Reads a tool catalog: an array (or `{"tools": [...]}`, as MCP's
 * `tools/list` answers) whose entries are tool names, `{name, input_schema}`
 * (also `inputSchema` or `parameters`), or OpenAI's
 * `{type: "function", function: {name, parameters}}`.
 */
export function parseToolCatalog(value: unknown): ParsedCatalog {
  const list = Array.isArray(value)
    ? value
    : isObject(value) && Array.isArray(value.tools)
      ? value.tools
      : undefined;
  if (!list)
    return { ok: false, message: 'a tool catalog is a JSON array of tools, or {"tools": [...]}' };
  const names = new Set<string>();
  const schemas = new Map<string, unknown>();
  for (const [index, raw] of list.entries()) {
    const entry =
      isObject(raw) && raw.type === 'function' && isObject(raw.function) ? raw.function : raw;
    if (typeof entry === 'string' && entry !== '') {
      names.add(entry);
      continue;
    }
    if (!isObject(entry) || typeof entry.name !== 'string' || entry.name === '') {
      return { ok: false, message: `tool ${index} of the catalog has no "name"` };
    }
    names.add(entry.name);
    const schemaKey = SCHEMA_KEYS.find((key) => entry[key] !== undefined);
    if (schemaKey) schemas.set(entry.name, entry[schemaKey]);
  }
  return { ok: true, catalog: { names: [...names].sort(), schemas } };
}

/** Joins catalogs (for `--tools` plus the profile's `tool_names`); undefined when both are absent. */
export function mergeCatalogs(...catalogs: (ToolCatalog | undefined)[]): ToolCatalog | undefined {
  const present = catalogs.filter((catalog): catalog is ToolCatalog => catalog !== undefined);
  if (present.length === 0) return undefined;
  const names = new Set<string>();
  const schemas = new Map<string, unknown>();
  for (const catalog of present) {
    for (const name of catalog.names) names.add(name);
    for (const [name, schema] of catalog.schemas) if (!schemas.has(name)) schemas.set(name, schema);
  }
  return { names: [...names].sort(), schemas };
}

/**
 * A catalog as a profile's rules see it: each name resolved as the kernel
 * resolves a call's tool name (runner suffix stripped, `tool_aliases`
 * applied), its schema moved to the resolved name. Without aliases the
 * names are still resolved, as every call's name is.
 */
export function resolvedCatalog(
  catalog: ToolCatalog | undefined,
  aliases: Readonly<Record<string, string>>,
): ToolCatalog | undefined {
  if (catalog === undefined) return undefined;
  const schemas = new Map<string, unknown>();
  for (const [name, schema] of catalog.schemas) {
    const resolved = resolveToolName(name, aliases);
    if (!schemas.has(resolved)) schemas.set(resolved, schema);
  }
  return {
    names: [...new Set(catalog.names.map((name) => resolveToolName(name, aliases)))].sort(),
    schemas,
  };
}

/** A catalog of names only. */
export function catalogOfNames(names: Iterable<string>): ToolCatalog {
  return { names: [...new Set(names)].sort(), schemas: new Map() };
}

/** The catalog's tools that a tool glob matches. */
export function toolsMatching(catalog: ToolCatalog, glob: string): string[] {
  return catalog.names.filter((name) => matchGlob(glob, name));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
