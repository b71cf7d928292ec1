import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { evaluatePermissions, type PermissionRule, type ToolManifest } from '@airlock/core';
import { McpServerConnection, manifestEntries } from '@airlock/mcp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { filesystemServer, workFolder } from './servers.js';

/*
 * The real filesystem server serving a project: what the bridge's manifest entries for its tools
 * say of a call is checked against what the server does with it.
 */
const denySecrets: PermissionRule = { verdict: 'deny', targets: ['secrets/**'] };
let root: string;
let connection: McpServerConnection;
let manifest: ToolManifest;

beforeAll(async () => {
  root = workFolder();
  mkdirSync(join(root, 'secrets'));
  mkdirSync(join(root, 'docs', 'secrets'), { recursive: true });
  writeFileSync(join(root, 'secrets', 'key'), 'the real key');
  writeFileSync(join(root, 'docs', 'secrets', 'key'), 'a decoy');
  writeFileSync(join(root, 'docs', 'guide.md'), 'a guide');
  connection = new McpServerConnection(filesystemServer(root));
  manifest = manifestEntries('fs', await connection.listTools());
});

afterAll(async () => {
  await connection?.close();
});

function decide(tool: string, input: unknown, workingDirectory: string | undefined) {
  return evaluatePermissions({
    toolName: tool,
    input,
    manifest,
    projectRoot: root,
    ruleSetId: 'autonomous',
    customRuleSets: undefined,
    approvalMode: 'bypass',
    overlays: { conversation: [{ ruleSetId: 'autonomous', rules: [denySecrets] }] },
    workingDirectory,
  }).verdict;
}

async function run(tool: string, input: unknown): Promise<string> {
  const result = await connection.callTool(tool, input, new AbortController().signal);
  return (result.content as { type: string; text?: string }[]).map((part) => part.text).join('');
}

describe("the filesystem server's relative paths, as the bridge's manifest reads them", () => {
  it("reads a relative path from its root, not the agent's working directory, and so does the manifest", async () => {
    expect(await run('read_text_file', { path: 'secrets/key' })).toBe('the real key');
    expect(decide('fs__read_text_file', { path: 'secrets/key' }, join(root, 'docs'))).toBe('deny');
    expect(
      decide('fs__write_file', { path: 'secrets/key', content: 'x' }, join(root, 'docs')),
    ).toBe('deny');
    expect(decide('fs__read_text_file', { path: 'guide.md' }, join(root, 'docs'))).toBe('allow');
    expect(decide('fs__read_text_file', { path: 'docs/guide.md' }, undefined)).toBe('allow');
  });
});

describe("the filesystem server's listings print names, never content", () => {
  it('lists names alone', async () => {
    expect(await run('list_directory', { path: '.' })).not.toContain('the real key');
    expect(await run('directory_tree', { path: '.' })).not.toContain('the real key');
    expect(await run('get_file_info', { path: 'secrets/key' })).not.toContain('the real key');
    expect(await run('search_files', { path: '.', pattern: '**/key' })).not.toContain(
      'the real key',
    );
  });

  it.each([
    ['fs__list_directory', { path: '.' }],
    ['fs__list_directory', { path: 'docs' }],
    ['fs__get_file_info', { path: '.' }],
    ['fs__list_directory_with_sizes', { path: '.' }],
    ['fs__directory_tree', { path: '.' }],
    ['fs__directory_tree', { path: '.', excludePatterns: ['node_modules'] }],
    ['fs__search_files', { path: '.', pattern: '**/*.md' }],
  ])('runs %s %j unasked under a deny of secrets/**', (tool, input) => {
    expect(decide(tool, input, undefined)).toBe('allow');
  });

  it.each([
    ['fs__list_directory', { path: 'secrets' }],
    ['fs__get_file_info', { path: 'secrets' }],
    ['fs__get_file_info', { path: 'secrets/key' }],
    ['fs__list_directory_with_sizes', { path: 'secrets/' }],
    ['fs__directory_tree', { path: 'secrets' }],
    ['fs__search_files', { path: 'secrets', pattern: '*' }],
    ['fs__search_files', { path: '.', pattern: 'secrets/*' }],
  ])('still refuses %s %j: it lists a guarded directory itself', (tool, input) => {
    expect(decide(tool, input, undefined)).toBe('deny');
  });

  it('still refuses a listing of the guarded directory made from below it', () => {
    expect(decide('fs__list_directory', { path: 'secrets' }, join(root, 'docs'))).toBe('deny');
  });
});
