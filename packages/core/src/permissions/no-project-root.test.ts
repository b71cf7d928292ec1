import { describe, expect, it } from 'vitest';
import type { PermissionRule, ToolManifest } from '../schemas/permissions.js';
import { evaluatePermissions } from './evaluate-permissions.js';

/**
 * With no project_root an absolute path cannot be placed against rooted
 * patterns. Claude Code's Read, Write and Edit name every file absolutely, so
 * reading such a path as outside the project granted `Read
 * /repo/secrets/key` under a deny of `secrets/**`: it asks instead, and says
 * how to fix the configuration.
 */

const MANIFEST: ToolManifest = [
  {
    name: 'Read',
    input_schema: { type: 'object' },
    risk_traits: ['read'],
    targets: [{ pointer: '/file_path', kind: 'path', names: 'file' }],
  },
  {
    name: 'Delete',
    input_schema: { type: 'object' },
    risk_traits: ['delete'],
    targets: [{ pointer: '/file_path', kind: 'path' }],
  },
];

function decide(tool: string, path: string, rules: PermissionRule[], projectRoot?: string) {
  return evaluatePermissions({
    toolName: tool,
    input: { file_path: path },
    manifest: MANIFEST,
    projectRoot,
    ruleSetId: 'autonomous',
    customRuleSets: undefined,
    approvalMode: 'bypass',
    overlays: { conversation: [{ ruleSetId: 'autonomous', rules }] },
  });
}

const denySecrets: PermissionRule = { verdict: 'deny', targets: ['secrets/**'] };

describe('a path rule with no project root', () => {
  it('asks of an absolute path it cannot place, naming project_root', () => {
    const read = decide('Read', '/repo/secrets/key', [denySecrets]);
    expect(read.verdict).toBe('ask');
    expect(read.detail).toContain('sets no project_root');
    expect(read.detail).toContain('/repo/secrets/key');
    // Any absolute path: nothing tells it is outside the project.
    expect(decide('Read', '/etc/hosts', [denySecrets]).verdict).toBe('ask');
    // A tool that removes what it names is refused, as above the project root.
    expect(decide('Delete', '/repo/build', [denySecrets]).verdict).toBe('deny');
  });

  it('reads relative paths as before, and placed ones once a root is set', () => {
    expect(decide('Read', 'secrets/key', [denySecrets]).verdict).toBe('deny');
    expect(decide('Read', 'src/a.ts', [denySecrets]).verdict).toBe('allow');
    expect(decide('Read', '/repo/secrets/key', [denySecrets], '/repo').verdict).toBe('deny');
    expect(decide('Read', '/repo/src/a.ts', [denySecrets], '/repo').verdict).toBe('allow');
  });

  it('an allow never covers a path it cannot place', () => {
    const allowSrc: PermissionRule = { verdict: 'allow', targets: ['src/**'] };
    const askRead: PermissionRule = { verdict: 'ask', tools: ['Read'] };
    expect(decide('Read', '/repo/src/a.ts', [allowSrc, askRead]).verdict).toBe('ask');
    // With no path rule at all, nothing changes.
    expect(decide('Read', '/repo/src/a.ts', [{ verdict: 'allow' }]).verdict).toBe('allow');
  });
});
