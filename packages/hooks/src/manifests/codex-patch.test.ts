import { evaluatePermissions, type PermissionRule } from '@airlock/core';
import { describe, expect, it } from 'vitest';
import { TOOL_MANIFESTS } from './tool-manifests.js';

const denyEnv: PermissionRule = { verdict: 'deny', targets: ['**/.env'] };
const denySecrets: PermissionRule = { verdict: 'deny', targets: ['secrets/**'] };
const askPem: PermissionRule = { verdict: 'ask', targets: ['**/*.pem'] };

const patch = (...lines: string[]) => ['*** Begin Patch', ...lines, '*** End Patch', ''].join('\n');

function decide(input: unknown, rule: PermissionRule, workingDirectory = '/repo') {
  return evaluatePermissions({
    toolName: 'apply_patch',
    input,
    manifest: TOOL_MANIFESTS.codex,
    projectRoot: '/repo',
    ruleSetId: 'autonomous',
    customRuleSets: undefined,
    approvalMode: 'bypass',
    overlays: { conversation: [{ ruleSetId: 'autonomous', rules: [rule] }] },
    workingDirectory,
  }).verdict;
}

describe("Codex's apply_patch meets the path rules over every file its patch names", () => {
  it.each(['command', 'input'])('refuses a patch in %s that writes a guarded file', (field) => {
    const update = patch('*** Update File: .env', '@@', '-A=1', '+A=2');
    expect(decide({ [field]: update }, denyEnv)).toBe('deny');
    expect(decide({ [field]: patch('*** Add File: secrets/key', '+x') }, denySecrets)).toBe('deny');
    expect(decide({ [field]: patch('*** Delete File: config/k.pem') }, askPem)).toBe('ask');
  });

  it.each([
    [
      'a file moved into a guarded directory',
      ['*** Update File: src/a.ts', '*** Move to: secrets/a.ts', '@@', '-a', '+b'],
    ],
    [
      'a guarded file among others',
      ['*** Add File: src/b.ts', '+b', '*** Delete File: secrets/old'],
    ],
    ['an absolute path', ['*** Delete File: /repo/secrets/key']],
    ['a path out and back in', ['*** Update File: src/../secrets/key', '@@', '-a', '+b']],
    ['a marker Codex reads after trimming', ['  *** Add File: secrets/key  ', '+x']],
  ])('refuses %s', (_, lines) => {
    expect(decide({ input: patch(...lines) }, denySecrets)).toBe('deny');
  });

  it('reads a relative path from the working directory', () => {
    expect(decide({ input: patch('*** Add File: key', '+x') }, denySecrets, '/repo/secrets')).toBe(
      'deny',
    );
  });

  it.each(['command', 'input'])(
    'grants a patch in %s that names no guarded file, whatever its hunks hold: it runs none of it',
    (field) => {
      const lines = [
        ...['*** Add File: src/b.ts', '+*** Add File: secrets/key', '+.env', '*** End of File'],
        ...['*** Update File: src/config.ts', '@@', '-x', '+dotenv.config({ path: ".env" })'],
        ...['*** Update File: README.md', '@@', '+Never cat secrets/key or a.pem', '+$(cat .env)'],
      ];
      for (const rule of [denyEnv, denySecrets, askPem]) {
        expect(decide({ [field]: patch(...lines) }, rule)).toBe('allow');
      }
    },
  );

  it('lets an allow over src/** grant a patch of src alone, never one reaching past it', () => {
    const underAllow = (text: string) =>
      evaluatePermissions({
        toolName: 'apply_patch',
        input: { input: text },
        manifest: TOOL_MANIFESTS.codex,
        projectRoot: '/repo',
        ruleSetId: 'src-only',
        customRuleSets: [
          {
            id: 'src-only',
            rules: [{ verdict: 'allow', tools: ['apply_patch'], targets: ['src/**'] }],
          },
        ],
        approvalMode: 'rules',
        overlays: {},
      }).verdict;
    expect(underAllow(patch('*** Update File: src/a.ts', '@@', '-a', '+b'))).toBe('allow');
    expect(underAllow(patch('*** Update File: src/a.ts', '*** Move to: docs/a.ts'))).toBe('ask');
    expect(underAllow(patch('*** Add File: src/b.ts', '+b', '*** Add File: b.ts', '+b'))).toBe(
      'ask',
    );
  });
});
