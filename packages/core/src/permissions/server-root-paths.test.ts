import { describe, expect, it } from 'vitest';
import type {
  PermissionRule,
  ToolManifest,
  ToolManifestEntry,
  ToolTarget,
} from '../schemas/permissions.js';
import { evaluatePermissions } from './evaluate-permissions.js';

/*
 * @modelcontextprotocol/server-filesystem (2026.8.31) resolves a relative path against its first
 * allowed directory (resolveRelativePathAgainstAllowedDirectories), not the agent's working
 * directory: from /repo/docs, `secrets/key` is /repo/secrets/key when it serves /repo.
 */
const path = (extra: Partial<ToolTarget> = {}): ToolTarget[] => [
  { pointer: '/path', kind: 'path', ...extra },
];
const tool = (name: string, targets: ToolTarget[], write = false): ToolManifestEntry => ({
  name,
  input_schema: { type: 'object' },
  risk_traits: write ? ['write'] : ['read'],
  targets,
});
const MANIFEST: ToolManifest = [
  tool('fs__read_text_file', path({ relative_to: 'server_root' })),
  tool('fs__write_file', path({ relative_to: 'server_root' }), true),
  tool('fs__list_directory', path({ relative_to: 'server_root', names: 'listing' })),
  tool('mcp__fs__read_text_file', path()),
  tool('Read', path({ names: 'file' })),
];

const denySecrets: PermissionRule = { verdict: 'deny', targets: ['secrets/**'] };

function decide(toolName: string, input: unknown, workingDirectory?: string) {
  return evaluatePermissions({
    toolName,
    input,
    manifest: MANIFEST,
    projectRoot: '/repo',
    ruleSetId: 'autonomous',
    customRuleSets: undefined,
    approvalMode: 'bypass',
    overlays: { conversation: [{ ruleSetId: 'autonomous', rules: [denySecrets] }] },
    workingDirectory,
  }).verdict;
}

describe("an MCP server's relative path is read from the project root too", () => {
  it.each([
    ['fs__read_text_file', { path: 'secrets/key' }],
    ['fs__write_file', { path: 'secrets/key', content: 'x' }],
    ['fs__list_directory', { path: 'secrets' }],
    // Claude Code and Codex name an MCP server's tool mcp__SERVER__TOOL: its server reads it.
    ['mcp__fs__read_text_file', { path: 'secrets/key' }],
    ['mcp__fs__read_text_file', { path: './docs/../secrets/key' }],
  ])('refuses %s %j from /repo/docs under a deny of secrets/**', (name, input) => {
    expect(decide(name, input, '/repo/docs')).toBe('deny');
  });

  it('still reads it from the working directory, and grants what neither spelling guards', () => {
    expect(decide('fs__read_text_file', { path: 'key' }, '/repo/secrets')).toBe('deny');
    expect(decide('mcp__fs__read_text_file', { path: 'key' }, '/repo/secrets')).toBe('deny');
    expect(decide('fs__read_text_file', { path: 'secrets/key' })).toBe('deny');
    expect(decide('fs__read_text_file', { path: 'guide.md' }, '/repo/docs')).toBe('allow');
    expect(decide('fs__read_text_file', { path: '/repo/docs/secrets/key' }, '/')).toBe('allow');
    expect(decide('fs__list_directory', { path: '.' }, '/repo/docs')).toBe('allow');
  });

  it("reads an agent's own tool from its working directory alone", () => {
    expect(decide('Read', { path: 'secrets/key' }, '/repo/docs')).toBe('allow');
  });
});
