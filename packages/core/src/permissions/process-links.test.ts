import { describe, expect, it } from 'vitest';
import type { PermissionRule, ToolManifest } from '../schemas/permissions.js';
import { evaluatePermissions } from './evaluate-permissions.js';
import { decideShell, denySecrets } from './fixtures/shell-decide.js';

const denyEnv: PermissionRule = { verdict: 'deny', targets: ['**/.env'] };

const READ: ToolManifest = [
  {
    name: 'Read',
    input_schema: { type: 'object' },
    risk_traits: ['read'],
    targets: [{ pointer: '/file_path', kind: 'path', names: 'file' }],
  },
];

function decideRead(path: string) {
  return evaluatePermissions({
    toolName: 'Read',
    input: { file_path: path },
    manifest: READ,
    projectRoot: '/repo',
    ruleSetId: 'autonomous',
    customRuleSets: undefined,
    approvalMode: 'bypass',
    overlays: { conversation: [{ ruleSetId: 'autonomous', rules: [denySecrets] }] },
  }).verdict;
}

describe("a path through a process's links to its directories (/proc/self/cwd) may lead anywhere", () => {
  // Each of these, run by bash 5.2 in the project, reads secrets/key or deletes .env.
  it.each([
    'cat /proc/self/cwd/secrets/key',
    'cat /proc/$$/cwd/secrets/key',
    'cat /proc/thread-self/cwd/secrets/key',
    'cat /proc/self/cwd/../repo/secrets/key',
    'cat /proc/self/root/repo/secrets/key',
    'cat /proc/1/task/1/root/repo/secrets/key',
    'cd /proc/self/cwd/secrets; cat key',
    'grep -r x /proc/self/cwd',
    'cat /dev/fd/3/key',
  ])('asks for %j under a deny of secrets/**', (command) => {
    expect(decideShell(command, [denySecrets])).toMatchObject({ verdict: 'ask', index: 0 });
  });

  it('asks for a delete of .env through /proc/self/cwd', () => {
    expect(decideShell('rm /proc/self/cwd/.env', [denyEnv]).verdict).toBe('ask');
  });

  it('does not grant a Read of a guarded file through /proc/self/cwd or /proc/self/root', () => {
    expect(decideRead('/proc/self/cwd/secrets/key')).not.toBe('allow');
    expect(decideRead('/proc/self/root/repo/secrets/key')).not.toBe('allow');
    expect(decideRead('/proc/cpuinfo')).toBe('allow');
  });

  it.each([
    'cat /proc/cpuinfo',
    'cat /proc/self/status',
    'echo x > /proc/self/fd/2',
    'echo x > /dev/fd/2',
    'ls /proc/self/cwd',
  ])('grants %j, which reaches no directory of the project', (command) => {
    expect(decideShell(command, [denySecrets]).verdict).toBe('allow');
  });
});
