import { evaluatePermissions, ToolManifestEntrySchema } from '@airlock/core';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { manifestEntries, prefixedName, RISK_TRAITS, riskTraitsOf, targetsOf } from './manifest.js';

const schema = (properties: Record<string, object> = {}): Tool['inputSchema'] => ({
  type: 'object',
  properties,
});

describe('risk traits from MCP annotations', () => {
  it('maps each hint, reading a missing one the strictest way', () => {
    expect(riskTraitsOf({ readOnlyHint: true, openWorldHint: false })).toEqual(['read']);
    expect(riskTraitsOf({ readOnlyHint: true })).toEqual(['read', 'network']);
    expect(
      riskTraitsOf({ readOnlyHint: false, destructiveHint: false, openWorldHint: false }),
    ).toEqual(['write']);
    expect(
      riskTraitsOf({ readOnlyHint: false, destructiveHint: true, openWorldHint: false }),
    ).toEqual(['write', 'delete', 'destructive']);
    expect(riskTraitsOf({ destructiveHint: false })).toEqual(['write', 'network']);
    expect(riskTraitsOf({ openWorldHint: true, readOnlyHint: false })).toEqual([
      'write',
      'delete',
      'destructive',
      'network',
    ]);
  });

  it('reads a tool without annotations as the strictest: it may write, delete, execute and reach out', () => {
    expect(riskTraitsOf(undefined)).toEqual([
      'write',
      'delete',
      'destructive',
      'execute',
      'network',
    ]);
    expect(riskTraitsOf({})).toEqual(['write', 'delete', 'destructive', 'network']);
  });

  it('only ever names declared traits', () => {
    const hints = [undefined, true, false];
    for (const readOnlyHint of hints)
      for (const destructiveHint of hints)
        for (const openWorldHint of hints) {
          const traits = riskTraitsOf({ readOnlyHint, destructiveHint, openWorldHint });
          expect(traits.every((t) => (RISK_TRAITS as readonly string[]).includes(t))).toBe(true);
          expect(new Set(traits).size).toBe(traits.length);
        }
  });
});

describe('targets from input schemas', () => {
  it('finds path and URL properties by name, as JSON pointers', () => {
    expect(
      targetsOf(
        schema({
          path: { type: 'string' },
          content: { type: 'string' },
          paths: { type: 'array', items: { type: 'string' } },
          destination: { type: 'string' },
          url: { type: 'string' },
          callback_url: { type: 'string' },
          'odd/name_path': { type: 'string' },
          count_path: { type: 'number' },
        }),
      ),
    ).toEqual([
      { pointer: '/path', kind: 'path', relative_to: 'server_root' },
      { pointer: '/paths', kind: 'path', relative_to: 'server_root' },
      { pointer: '/destination', kind: 'path', relative_to: 'server_root' },
      { pointer: '/url', kind: 'url' },
      { pointer: '/callback_url', kind: 'url' },
      { pointer: '/odd~1name_path', kind: 'path', relative_to: 'server_root' },
    ]);
    expect(targetsOf(schema())).toEqual([]);
  });
});

describe('manifest entries', () => {
  it('prefixes names, keeps schemas, maps traits and execution', () => {
    const write: Tool = {
      name: 'write_file',
      description: 'Write a file',
      inputSchema: schema({ path: { type: 'string' }, content: { type: 'string' } }),
      annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: false },
    };
    const read: Tool = {
      name: 'read_graph',
      inputSchema: schema(),
      annotations: { readOnlyHint: true, openWorldHint: false },
    };
    const unknown: Tool = { name: 'mystery', inputSchema: schema({ url: { type: 'string' } }) };
    expect(manifestEntries('fs', [write, read, unknown])).toEqual([
      {
        name: 'fs__write_file',
        description: 'Write a file',
        input_schema: write.inputSchema,
        risk_traits: ['write', 'delete', 'destructive'],
        targets: [{ pointer: '/path', kind: 'path', relative_to: 'server_root' }],
        availability: 'available',
        execution: 'sequential',
      },
      {
        name: 'fs__read_graph',
        input_schema: { type: 'object', properties: {} },
        risk_traits: ['read'],
        availability: 'available',
        execution: 'parallel',
      },
      {
        name: 'fs__mystery',
        input_schema: unknown.inputSchema,
        risk_traits: ['write', 'delete', 'destructive', 'execute', 'network'],
        targets: [{ pointer: '/url', kind: 'url' }],
        availability: 'available',
        execution: 'sequential',
      },
    ]);
    expect(prefixedName('memory', 'create_entities')).toBe('memory__create_entities');
  });
});

describe("the filesystem server's listing tools", () => {
  const readOnly = { readOnlyHint: true, openWorldHint: false };
  const listDirectory: Tool = {
    name: 'list_directory',
    inputSchema: schema({ path: { type: 'string' } }),
    annotations: readOnly,
  };
  const targets = (tool: Tool) => manifestEntries('fs', [tool])[0]?.targets;

  it('reads their paths as listings, a search pattern under its path', () => {
    expect(targets(listDirectory)).toEqual([
      { pointer: '/path', kind: 'path', names: 'listing', relative_to: 'server_root' },
    ]);
    const search: Tool = {
      name: 'search_files',
      inputSchema: schema({
        path: { type: 'string' },
        pattern: { type: 'string' },
        excludePatterns: { type: 'array', items: { type: 'string' } },
      }),
      annotations: readOnly,
    };
    expect(targets(search)).toEqual([
      {
        pointer: '/pattern',
        kind: 'path',
        names: 'listing',
        under: '/path',
        relative_to: 'server_root',
      },
      { pointer: '/path', kind: 'path', names: 'listing', relative_to: 'server_root' },
    ]);
  });

  it('reads a tool of that name otherwise declared as one that may read through its path', () => {
    const through = [{ pointer: '/path', kind: 'path', relative_to: 'server_root' }];
    expect(targets({ ...listDirectory, annotations: { readOnlyHint: false } })).toEqual(through);
    expect(targets({ ...listDirectory, annotations: undefined })).toEqual(through);
    const withContent = schema({ path: { type: 'string' }, content: { type: 'boolean' } });
    expect(targets({ ...listDirectory, inputSchema: withContent })).toEqual(through);
    expect(targets({ ...listDirectory, name: 'read_directory' })).toEqual(through);
  });
});

describe('a list of paths under a plural name', () => {
  // mcp-server-git's git_add {repo_path, files: ['secrets/key']} stages each file it names.
  const gitAdd: Tool = {
    name: 'git_add',
    inputSchema: schema({
      repo_path: { type: 'string' },
      files: { type: 'array', items: { type: 'string' } },
    }),
    annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
  };

  it('reads files, file_paths and the like as paths', () => {
    const strings = { type: 'array', items: { type: 'string' } };
    const pointers = targetsOf(
      schema({ files: strings, file_paths: strings, sourcePaths: strings, filenames: strings }),
    ).map((target) => target.pointer);
    expect(pointers).toEqual(['/files', '/file_paths', '/sourcePaths', '/filenames']);
  });

  it('refuses a call naming a guarded file in such a list', () => {
    const verdict = evaluatePermissions({
      toolName: 'git__git_add',
      input: { repo_path: '/repo', files: ['src/a.ts', 'secrets/key'] },
      manifest: manifestEntries('git', [gitAdd]),
      projectRoot: '/repo',
      ruleSetId: 'autonomous',
      customRuleSets: undefined,
      approvalMode: 'bypass',
      overlays: {
        conversation: [
          { ruleSetId: 'autonomous', rules: [{ verdict: 'deny', targets: ['secrets/**'] }] },
        ],
      },
    }).verdict;
    expect(verdict).toBe('deny');
  });
});

describe('an idempotent tool', () => {
  it('is declared idempotent from idempotentHint, in a shape the kernel accepts', () => {
    const tool = (idempotentHint?: boolean): Tool => ({
      name: 'upsert',
      inputSchema: { type: 'object' },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint },
    });
    const [declared] = manifestEntries('db', [tool(true)]);
    expect(declared).toMatchObject({ name: 'db__upsert', idempotent: true });
    expect(ToolManifestEntrySchema.safeParse(declared).success).toBe(true);
    for (const hint of [false, undefined]) {
      expect(manifestEntries('db', [tool(hint)])[0]).not.toHaveProperty('idempotent');
    }
  });
});
