import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCaptured } from '../testing/capture.js';

const dir = mkdtempSync(join(tmpdir(), 'rules-lint-options-'));
// A warning (fragment-without-star) and an info (deny-without-reason) on a clean declaration.
const WARN_AND_INFO =
  '[\n  {"tool": "write", "path": "path", "match": ".env", "verdict": "deny", "reason": "secrets"},\n  {"tool": "bash", "verdict": "deny"}\n]\n';

beforeAll(() => {
  mkdirSync(join(dir, 'team/policies/nested'), { recursive: true });
  mkdirSync(join(dir, 'other'), { recursive: true });
  writeFileSync(
    join(dir, 'team/rules-lint.config.jsonc'),
    '// the team turns one rule off and raises another\n{"rules": {"deny-without-reason": "off", "fragment-without-star": "error"}, "tools": "tools.json"}\n',
  );
  writeFileSync(join(dir, 'team/tools.json'), '["bash", "write"]');
  writeFileSync(join(dir, 'team/policies/a.json'), WARN_AND_INFO);
  writeFileSync(
    join(dir, 'team/policies/nested/b.jsonc'),
    '// b\n[{"tool": "bsah", "verdict": "allow"}]\n',
  );
  writeFileSync(join(dir, 'team/policies/nested/c.tools.json'), '["bash"]');
  writeFileSync(join(dir, 'other/a.json'), WARN_AND_INFO);
  writeFileSync(join(dir, 'other/quiet.json'), '{"rules": {"fragment-without-star": "info"}}');
  writeFileSync(
    join(dir, 'other/broken-config.json'),
    '{"rules": {"no-such-rule": "warn"}, "colour": 1}',
  );
  writeFileSync(
    join(dir, 'other/examples.json'),
    JSON.stringify({
      approval_mode: 'rules',
      approval_rules: [],
      examples: [{ tool: 'x', expect: 'denied' }],
    }),
  );
  writeFileSync(
    join(dir, 'other/no-examples.json'),
    JSON.stringify({ approval_mode: 'rules', approval_rules: [] }),
  );
});

function codes(stdout: string): string[][] {
  const report = JSON.parse(stdout) as {
    files: { file: string; findings: { code: string; severity: string }[] }[];
  };
  return report.files.flatMap((file) =>
    file.findings.map((finding) => [file.file, finding.code, finding.severity]),
  );
}

describe('check: the config file', () => {
  it('is found upward from the linted file and sets severities and the tool catalog', async () => {
    const run = await runCaptured(
      ['check', '--format', 'json', 'team/policies/a.json', 'team/policies/nested/b.jsonc'],
      dir,
    );
    expect(codes(run.stdout)).toEqual([
      ['team/policies/a.json', 'fragment-without-star', 'error'],
      ['team/policies/nested/b.jsonc', 'unknown-tool', 'error'],
    ]);
    expect(run.code).toBe(1);
  });

  it('is not used for files outside its folder; --config names one for every file', async () => {
    const plain = await runCaptured(['check', '--format', 'json', 'other/a.json'], dir);
    expect(codes(plain.stdout)).toEqual([
      ['other/a.json', 'fragment-without-star', 'warning'],
      ['other/a.json', 'deny-without-reason', 'info'],
    ]);
    const named = await runCaptured(
      ['check', '--format', 'json', '--config', 'other/quiet.json', 'other/a.json'],
      dir,
    );
    expect(codes(named.stdout)).toEqual([
      ['other/a.json', 'fragment-without-star', 'info'],
      ['other/a.json', 'deny-without-reason', 'info'],
    ]);
  });

  it("sets the mode a bare list runs under; --mode wins over it, a profile's approval_mode over both", async () => {
    writeFileSync(join(dir, 'other/ask-mode.json'), '{"mode": "ask"}');
    writeFileSync(
      join(dir, 'other/bare.json'),
      '[{"tool": "read", "verdict": "allow"}, {"tool": "bash", "verdict": "ask"}]',
    );
    const underAsk = await runCaptured(
      ['check', '--format', 'json', '--config', 'other/ask-mode.json', 'other/bare.json'],
      dir,
    );
    expect(codes(underAsk.stdout)).toEqual([
      ['other/bare.json', 'ask-noop-in-ask-mode', 'warning'],
    ]);
    const underRules = await runCaptured(
      [
        'check',
        '--format',
        'json',
        '--config',
        'other/ask-mode.json',
        '--mode',
        'rules',
        'other/bare.json',
      ],
      dir,
    );
    expect(codes(underRules.stdout)).toEqual([]);
  });

  it('refuses a broken config with every problem on one line, exit 2', async () => {
    const run = await runCaptured(
      ['check', '--config', 'other/broken-config.json', 'other/a.json'],
      dir,
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      'rules-lint: other/broken-config.json: unknown key "colour" (use rules, tools or mode); "rules": no lint rule "no-such-rule"\n',
    );
  });
});

describe('check: inputs', () => {
  it('lints every rule file under a folder, skipping catalogs and configs', async () => {
    const run = await runCaptured(['check', '--format', 'json', 'team'], dir);
    expect(JSON.parse(run.stdout).files.map((file: { file: string }) => file.file)).toEqual([
      'team/policies/a.json',
      'team/policies/nested/b.jsonc',
    ]);
  });

  it('skips package.json, package-lock.json and tsconfig files, not rule files named like them', async () => {
    const project = mkdtempSync(join(tmpdir(), 'rules-lint-package-names-'));
    for (const name of [
      'package.json',
      'package-lock.json',
      'tsconfig.json',
      'tsconfig.base.json',
      'jsconfig.json',
    ])
      writeFileSync(join(project, name), '{"name": "x"}');
    for (const name of ['package-installs.json', 'packages.json', 'tsconfig-rules.json'])
      writeFileSync(join(project, name), '[{"tool": "bash", "verdict": "allow", "oops": 1}]');
    for (const input of ['.', '*.json']) {
      const run = await runCaptured(['check', '--format', 'json', input], project);
      expect(JSON.parse(run.stdout).files.map((file: { file: string }) => file.file)).toEqual([
        'package-installs.json',
        'packages.json',
        'tsconfig-rules.json',
      ]);
      expect(run.code).toBe(1);
    }
  });

  it("enters the .airlock dot-folder (the project's permissions.json), and no other", async () => {
    const project = mkdtempSync(join(tmpdir(), 'rules-lint-dot-'));
    const guardrail =
      '[{"ruleSetId": "supervised", "rules": [{"verdict": "deny", "guardrail": true}]}]';
    for (const folder of ['.airlock', '.Airlock', '.github', 'policies'])
      mkdirSync(join(project, folder));
    writeFileSync(join(project, '.airlock/permissions.json'), guardrail);
    writeFileSync(join(project, '.Airlock/Permissions.json'), guardrail);
    writeFileSync(join(project, '.github/x.json'), '[]');
    writeFileSync(join(project, 'policies/a.json'), '[]');
    const run = await runCaptured(['check', '--format', 'json', '.'], project);
    expect(JSON.parse(run.stdout).files.map((file: { file: string }) => file.file)).toEqual([
      '.airlock/permissions.json',
      'policies/a.json',
    ]);
    // A guardrail is refused in a project document.
    expect(run.code).toBe(1);
  });

  it('expands globs, ** across folders', async () => {
    const run = await runCaptured(
      ['check', '--format', 'json', 'team/**/*.jsonc', 'other/a.*'],
      dir,
    );
    expect(JSON.parse(run.stdout).files.map((file: { file: string }) => file.file)).toEqual([
      'team/policies/nested/b.jsonc',
      'other/a.json',
    ]);
    const none = await runCaptured(['check', 'nowhere/*.json'], dir);
    expect(none.code).toBe(2);
    expect(none.stderr).toBe('rules-lint: no file matches "nowhere/*.json"\n');
  });

  it('reads standard input for -, named by --stdin-filename (comments allowed in .jsonc, config found from it)', async () => {
    const run = await runCaptured(
      ['check', '--format', 'json', '--stdin-filename', 'team/policies/piped.jsonc', '-'],
      dir,
      '// piped\n[{"tool": "bash", "verdict": "deny"}]',
    );
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).files).toEqual([
      { file: 'team/policies/piped.jsonc', findings: [] },
    ]);
    const broken = await runCaptured(['check', '-'], dir, '[');
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/^rules-lint: stdin\.json:1:2: /);
  });
});

describe('check: examples', () => {
  it('reports a malformed examples block as test does, without running the examples', async () => {
    writeFileSync(
      join(dir, 'other/bad-examples.json'),
      JSON.stringify({
        approval_mode: 'rules',
        approval_rules: [{ tool: 'bash', verdict: 'allow' }],
        examples: [{ tool: 'bash', expect: 'denied' }, { tool: 'bash', expect: 'sometimes' }, 'x'],
      }),
    );
    const run = await runCaptured(['check', '--format', 'json', 'other/bad-examples.json'], dir);
    expect(run.code).toBe(1);
    const findings = JSON.parse(run.stdout).files[0].findings;
    // Example 0 would fail if run; check only looks at the shape.
    expect(
      findings.map((finding: { code: string; pointer: string }) => [finding.code, finding.pointer]),
    ).toEqual([
      ['example_invalid', '/examples/1/expect'],
      ['example_invalid', '/examples/2'],
    ]);
    writeFileSync(
      join(dir, 'other/examples-object.json'),
      '{"approval_mode": "ask", "examples": {}}',
    );
    const notArray = await runCaptured(
      ['check', '--format', 'json', 'other/examples-object.json'],
      dir,
    );
    expect(codes(notArray.stdout)).toEqual([
      ['other/examples-object.json', 'examples_not_array', 'error'],
    ]);
  });
});

describe('check: output and exit policy', () => {
  it('--quiet reports errors only', async () => {
    const run = await runCaptured(
      ['check', '--format', 'json', '--quiet', 'other/a.json', 'team/policies/a.json'],
      dir,
    );
    expect(codes(run.stdout)).toEqual([['team/policies/a.json', 'fragment-without-star', 'error']]);
  });

  it('--output writes the report to a file and nothing to stdout', async () => {
    const run = await runCaptured(
      ['check', '--format', 'json', '--output', 'report.json', 'other/a.json'],
      dir,
    );
    expect(run.stdout).toBe('');
    expect(JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')).summary).toEqual({
      errors: 0,
      warnings: 1,
      infos: 1,
    });
  });

  it('--max-warnings N fails past N warnings; --error-on-warnings fails on any', async () => {
    expect((await runCaptured(['check', 'other/a.json'], dir)).code).toBe(0);
    expect((await runCaptured(['check', '--max-warnings', '1', 'other/a.json'], dir)).code).toBe(0);
    const over = await runCaptured(['check', '--max-warnings', '0', 'other/a.json'], dir);
    expect(over.code).toBe(1);
    expect(over.stderr).toBe('rules-lint: 1 warning(s), more than --max-warnings 0\n');
    expect((await runCaptured(['check', '--error-on-warnings', 'other/a.json'], dir)).code).toBe(1);
    const bad = await runCaptured(['check', '--max-warnings', 'many', 'other/a.json'], dir);
    expect(bad.code).toBe(2);
  });

  it('--quiet hides warnings from the report but not from --max-warnings or --error-on-warnings', async () => {
    for (const policy of [['--max-warnings', '0'], ['--error-on-warnings']]) {
      const run = await runCaptured(
        ['check', '--format', 'json', '--quiet', ...policy, 'other/a.json'],
        dir,
      );
      expect([policy, codes(run.stdout), run.code]).toEqual([policy, [], 1]);
      expect(run.stderr).toMatch(/^rules-lint: 1 warning\(s\)/);
    }
  });
});

describe('test: several files and --allow-empty', () => {
  it('runs the examples of every file and fails on a file without examples', async () => {
    const run = await runCaptured(['test', 'other/examples.json', 'other/no-examples.json'], dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'other/examples.json: 1 example: 1 passed, 0 failed\nrules-lint: other/no-examples.json has no examples (pass --allow-empty to accept that)\n',
    );
    const allowed = await runCaptured(
      ['test', '--allow-empty', 'other/examples.json', 'other/no-examples.json'],
      dir,
    );
    expect(allowed.code).toBe(0);
  });
});
