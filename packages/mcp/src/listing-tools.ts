import type { Tool } from '@modelcontextprotocol/sdk/types.js';

/** A path target of a tool that prints names under it, never content (core's `listing`). */
export interface ListingTarget {
  pointer: string;
  kind: 'path';
  names: 'listing';
  under?: string;
  relative_to: 'server_root';
}

/**
 * The filesystem server's (@modelcontextprotocol/server-filesystem, 2026.8.31) tools that print
 * the names of entries under `path`, never their content, by their input properties:
 * list_directory and list_directory_with_sizes (one directory's entries, with sizes),
 * directory_tree (every entry below, minus `excludePatterns`), search_files (the paths below
 * `path` that its glob `pattern` matches, minus `excludePatterns`); and get_file_info, which prints
 * the path's own metadata (size, times, mode), as `stat` does.
 */
const LISTING_TOOLS: Readonly<Record<string, readonly string[]>> = {
  get_file_info: ['path'],
  list_directory: ['path'],
  list_directory_with_sizes: ['path', 'sortBy'],
  directory_tree: ['excludePatterns', 'path'],
  search_files: ['excludePatterns', 'path', 'pattern'],
};

const listing = (pointer: string, under?: string): ListingTarget => ({
  pointer,
  kind: 'path',
  names: 'listing',
  ...(under === undefined ? {} : { under }),
  relative_to: 'server_root',
});

/**
 * The targets of a tool of the filesystem server that lists names, read as `ls` and `find` are
 * (a rule names the listing only when its directory, or a pattern's literal directory, is a
 * guarded path itself): known by its name, its read-only annotation and exactly the input
 * properties that server declares for it; undefined for any other tool, whose paths may be read
 * through.
 */
export function listingTargetsOf(tool: Tool): ListingTarget[] | undefined {
  const expected = Object.hasOwn(LISTING_TOOLS, tool.name) ? LISTING_TOOLS[tool.name] : undefined;
  if (expected === undefined || tool.annotations?.readOnlyHint !== true) return undefined;
  const properties = Object.entries(tool.inputSchema.properties ?? {});
  const names = properties.map(([name]) => name).sort();
  if (names.join('\n') !== expected.join('\n')) return undefined;
  const text = (name: string) =>
    (properties.find(([property]) => property === name)?.[1] as { type?: unknown } | undefined)
      ?.type === 'string';
  if (!text('path') || (names.includes('pattern') && !text('pattern'))) return undefined;
  // search_files matches its pattern against paths relative to `path`, as Glob's pattern is read.
  return names.includes('pattern')
    ? [listing('/pattern', '/path'), listing('/path')]
    : [listing('/path')];
}
