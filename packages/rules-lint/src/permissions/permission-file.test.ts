import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCaptured } from '../testing/capture.js';

const dir = mkdtempSync(join(tmpdir(), 'rules-lint-permissions-'));

const PROFILE = {
  approval_mode: 'bypass',
  approval_rules: [{ tool: 'write_file', path: 'path', match: '*.env', verdict: 'deny' }],
  project_root: '/repo',
  tool_manifest: [
    {
      name: 'write_file',
      input_schema: { type: 'object' },
      risk_traits: ['write'],
      targets: [{ pointer: '/path', kind: 'path' }],
    },
  ],
  custom_rule_sets: [{ id: 'coding', rules: [{ verdict: 'allow', targets: ['src/**'] }] }],
};

beforeAll(() => {
  writeFileSync(join(dir, 'profile.json'), JSON.stringify(PROFILE, null, 2));
  writeFileSync(
    join(dir, 'bad-profile.json'),
    JSON.stringify(
      { ...PROFILE, custom_rule_sets: [{ id: 'coding', rules: [{ verdict: 'sometimes' }] }] },
      null,
      2,
    ),
  );
  writeFileSync(
    join(dir, 'overlay.json'),
    '[\n  {"ruleSetId": "read_only", "rules": [\n    {"verdict": "allow", "risks": ["write"], "targets": ["src/**"]}\n  ]}\n]\n',
  );
  writeFileSync(
    join(dir, 'bad-overlay.json'),
    '[\n  {"ruleSetId": "read_only", "rules": [\n    {"verdict": "allow", "targets": ["/etc/**"]}\n  ]}\n]\n',
  );
  mkdirSync(join(dir, '.airlock'));
  writeFileSync(
    join(dir, '.airlock/permissions.json'),
    '[{"ruleSetId": "supervised", "rules": [{"verdict": "deny", "guardrail": true}]}]',
  );
  writeFileSync(
    join(dir, 'set.json'),
    '{"id": "coding", "rules": [{"verdict": "allow", "colour": 1}]}',
  );
});

describe('rules-lint check on permission files', () => {
  it('passes a valid overlay document and a profile with a valid custom set', async () => {
    const result = await runCaptured(['check', 'overlay.json', 'profile.json'], dir);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });

  it('reports an overlay rule with its line and column', async () => {
    const result = await runCaptured(['check', 'bad-overlay.json', '--format', 'json'], dir);
    expect(result.code).toBe(1);
    const [report] = JSON.parse(result.stdout).files;
    expect(report.findings).toEqual([
      expect.objectContaining({
        code: 'permission_rule_invalid',
        pointer: '/0/rules/0/targets/0',
        line: 3,
        column: 38,
      }),
    ]);
  });

  it('checks .airlock/permissions.json as a project document (no guardrails)', async () => {
    const result = await runCaptured(['check', '.airlock/permissions.json'], dir);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('only user overlays hold guardrails');
  });

  it('reports a malformed custom rule set in a profile and in its own file', async () => {
    const inProfile = await runCaptured(['check', 'bad-profile.json'], dir);
    expect(inProfile.code).toBe(1);
    expect(inProfile.stdout).toContain('rule_set_invalid');
    const alone = await runCaptured(['check', 'set.json', '--format', 'json'], dir);
    expect(alone.code).toBe(1);
    expect(alone.stdout).toContain('/rules/0');
  });
});

describe('rules-lint eval --rule-set', () => {
  const evaluate = async (args: string[]) => {
    const result = await runCaptured(['eval', ...args], dir);
    expect(result.stderr).toBe('');
    return { code: result.code, output: JSON.parse(result.stdout) };
  };

  it('prints the rule set layer and the composed decision with its deciding layer', async () => {
    const { code, output } = await evaluate([
      '--rule-set',
      'read_only',
      '--rules',
      'profile.json',
      '--tool',
      'write_file',
      '--input',
      '{"path": "./src/a.ts"}',
    ]);
    expect(code).toBe(0);
    expect(output.rule_set_layer).toMatchObject({
      verdict: 'deny',
      rule: { rule_set: { id: 'read_only', version: '1' }, scope: 'rule_set', index: 0 },
    });
    expect(output.decision).toMatchObject({ outcome: 'denied', layer: 'rule_set' });
    expect(output.targets).toEqual([{ kind: 'path', text: 'src/a.ts', rooted: true }]);
  });

  it('applies an overlay file at its scope', async () => {
    const { output } = await evaluate([
      '--rule-set',
      'read_only',
      '--rules',
      'profile.json',
      '--conversation',
      'overlay.json',
      '--tool',
      'write_file',
      '--input',
      '{"path": "src/a.ts"}',
    ]);
    expect(output.decision).toMatchObject({ outcome: 'granted', layer: 'approval_rules' });
    expect(output.rule_set_layer.rule).toMatchObject({ scope: 'conversation', group: 0 });
  });

  it('reports a fallback and the declared deny still binds', async () => {
    const { output } = await evaluate([
      '--rule-set',
      'missing',
      '--rules',
      'profile.json',
      '--tool',
      'write_file',
      '--input',
      '{"path": "prod.env"}',
    ]);
    expect(output.fallback).toMatchObject({ reason: 'missing' });
    expect(output.decision).toMatchObject({ outcome: 'denied', layer: 'approval_rules' });
  });

  it('refuses an invalid overlay file with its findings', async () => {
    const result = await runCaptured(
      ['eval', '--rule-set', 'read_only', '--tool', 'x', '--user', 'bad-overlay.json'],
      dir,
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('bad-overlay.json:3');
  });
});
