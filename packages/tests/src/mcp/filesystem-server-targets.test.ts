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
