import { describe, expect, it } from 'vitest';
import type { PermissionRule, ToolManifest } from '../schemas/permissions.js';
import { evaluateGuardrails, evaluatePermissions } from './evaluate-permissions.js';

const MANIFEST: ToolManifest = [
  { name: 'Bash', input_schema: { type: 'object' }, risk_traits: ['execute'] },
  {
    name: 'Read',
    input_schema: { type: 'object' },
    risk_traits: ['read'],
    targets: [{ pointer: '/file_path', kind: 'path', names: 'file' }],
  },
  {
    name: 'Write',
    input_schema: { type: 'object' },
    risk_traits: ['write'],
    targets: [{ pointer: '/file_path', kind: 'path', names: 'file' }],
  },
  {
    name: 'Grep',
    input_schema: { type: 'object' },
    risk_traits: ['read'],
    targets: [{ pointer: '/path', kind: 'path', when_absent: 'working_directory' }],
  },
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

describe("a call's relative paths are read from its working directory", () => {
  it.each([
    ['Bash', { command: 'cat key' }],
    ['Bash', { command: 'cp key /tmp/x' }],
    ['Bash', { command: 'cd .. && cat secrets/key' }],
    ['Read', { file_path: 'key' }],
    ['Grep', { pattern: 'x' }],
    ['Grep', { pattern: 'x', path: '.' }],
  ])('asks or refuses %s %j from /repo/secrets', (tool, input) => {
    expect(decide(tool, input, '/repo/secrets')).not.toBe('allow');
    expect(decide(tool, input, '/repo/secrets/')).not.toBe('allow');
  });

  it('refuses a relative read of a guarded file from its directory, grants it from another', () => {
    expect(decide('Bash', { command: 'cat key' }, '/repo/secrets')).toBe('ask');
    expect(decide('Read', { file_path: 'key' }, '/repo/secrets')).toBe('deny');
    expect(decide('Read', { file_path: 'key' }, '/repo/src')).toBe('allow');
    expect(decide('Bash', { command: 'cat key' }, '/repo/src')).toBe('allow');
    expect(decide('Bash', { command: 'cat key' }, '/repo')).toBe('allow');
    expect(decide('Bash', { command: 'cat key' })).toBe('allow');
  });

  it('reads a working directory above the project root as it is', () => {
    expect(decide('Bash', { command: 'cat repo/secrets/key' }, '/')).toBe('ask');
    expect(decide('Bash', { command: 'cat repo/src/a.ts' }, '/')).toBe('allow');
    expect(decide('Read', { file_path: 'repo/secrets/key' }, '/')).toBe('deny');
  });

  it.each(['/elsewhere', '/repo-other/secrets', 'secrets', ''])(
    'reads a relative path from %j, which cannot be placed, as naming anything',
    (cwd) => {
      expect(decide('Bash', { command: 'cat key' }, cwd)).toBe('ask');
      expect(decide('Read', { file_path: 'key' }, cwd)).toBe('ask');
      expect(decide('Write', { file_path: 'key' }, cwd)).toBe('ask');
      // An absolute path names what it says.
      expect(decide('Bash', { command: 'cat /repo/src/a.ts' }, cwd)).toBe('allow');
      expect(decide('Read', { file_path: '/repo/src/a.ts' }, cwd)).toBe('allow');
    },
  );

  it('binds a guardrail from the working directory too', () => {
    const outcome = evaluateGuardrails({
      toolName: 'Bash',
      input: { command: 'cat key' },
      manifest: MANIFEST,
      projectRoot: '/repo',
      guardrails: [
        {
          owner: 'member:a',
          document: [
            { ruleSetId: 'x', rules: [{ ...denySecrets, verdict: 'ask', guardrail: true }] },
          ],
        },
      ],
      workingDirectory: '/repo/secrets',
    });
    expect(outcome?.verdict).toBe('ask');
  });
});
