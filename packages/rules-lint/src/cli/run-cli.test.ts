import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCaptured } from '../testing/capture.js';

const dir = mkdtempSync(join(tmpdir(), 'rules-lint-cli-'));

beforeAll(() => {
  writeFileSync(
    join(dir, 'rules.json'),
    '[\n  {"tool": "write", "path": "path", "match": ".env", "verdict": "deny", "reason": "secrets"},\n  {"tool": "bash", "verdict": "deny"}\n]\n',
  );
  writeFileSync(
    join(dir, 'refused.json'),
    '[\n  {"tool": "bash", "verdict": "allow", "colour": "red"}\n]\n',
  );
  writeFileSync(join(dir, 'tools.json'), '[{"name": "bash"}, {"name": "write"}]');
  writeFileSync(join(dir, 'typo.json'), '[{"tool": "bsah", "verdict": "allow"}]');
  writeFileSync(
    join(dir, 'examples.json'),
    JSON.stringify(
      {
        approval_mode: 'rules',
        approval_rules: [
          { tool: 'bash', path: 'command', match: '*rm -rf*', verdict: 'deny', reason: 'no' },
          { tool: 'bash', verdict: 'allow' },
        ],
        examples: [
          { tool: 'bash', input: { command: 'ls' }, expect: 'granted' },
          { tool: 'bash', input: { command: 'rm -rf /' }, expect: 'granted' },
          { tool: 'write', input: {}, expect: 'denied' },
          { tool: 'bash', mode: 'sometimes', expect: 'parked' },
          { tool: 'bash', origin: 'author', expect: 'granted', mode: 'bypass' },
        ],
      },
      null,
      2,
    ),
  );
});

describe('rules-lint check', () => {
  it('pretty: file:line:column, the source line and a caret under the span', async () => {
    const run = await runCaptured(['check', 'rules.json'], dir);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('rules.json:2:46: warning[fragment-without-star]:');
    expect(run.stdout).toContain(
      '2 |   {"tool": "write", "path": "path", "match": ".env", "verdict": "deny", "reason": "secrets"},',
    );
    expect(run.stdout).toContain(`  | ${' '.repeat(45)}^~~~~~`);
    expect(run.stdout).toContain('= fix (unsafe): Add a leading "*": "*.env"');
    expect(run.stdout.trim().split('\n').at(-1)).toBe('0 errors, 1 warning, 1 info in 1 file');
  });

  it('json: stable shape with pointers and positions; exit 1 on a declaration error', async () => {
    const run = await runCaptured(['check', '--format', 'json', 'refused.json'], dir);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toEqual({
      version: 1,
      files: [
        {
          file: 'refused.json',
          findings: [
            {
              code: 'unknown_key',
              source: 'declaration',
              severity: 'error',
              message: expect.stringContaining('"colour" is not a rule key'),
              pointer: '/0/colour',
              line: 2,
              column: 40,
              end_line: 2,
              end_column: 48,
            },
          ],
        },
      ],
      summary: { errors: 1, warnings: 0, infos: 0 },
    });
  });

  it('sarif: a 2.1.0 log with rules, results and regions', async () => {
    const run = await runCaptured(
      ['check', '--format', 'sarif', 'rules.json', 'refused.json'],
      dir,
    );
    const log = JSON.parse(run.stdout);
    expect(log.version).toBe('2.1.0');
    const [sarifRun] = log.runs;
    expect(sarifRun.tool.driver.name).toBe('rules-lint');
    expect(sarifRun.tool.driver.rules.map((rule: { id: string }) => rule.id)).toEqual(
      expect.arrayContaining(['shadowed-allow', 'unknown_key']),
    );
    const result = sarifRun.results.find(
      (entry: { ruleId: string }) => entry.ruleId === 'fragment-without-star',
    );
    expect(result.level).toBe('warning');
    expect(result.locations[0].physicalLocation).toEqual({
      artifactLocation: { uri: 'rules.json', uriBaseId: '%SRCROOT%' },
      region: { startLine: 2, startColumn: 46, endLine: 2, endColumn: 52 },
    });
    expect(sarifRun.tool.driver.rules[result.ruleIndex].id).toBe('fragment-without-star');
  });

  it('uses --tools for unknown-tool, and reports the other files when one is unreadable (exit 2)', async () => {
    const typo = await runCaptured(['check', '--tools', 'tools.json', 'typo.json'], dir);
    expect(typo.code).toBe(1);
    expect(typo.stdout).toContain('Did you mean "bash"?');
    const mixed = await runCaptured(
      ['check', '--format', 'json', 'typo.json', 'missing.json'],
      dir,
    );
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toBe('rules-lint: missing.json: cannot read (no such file)\n');
    expect(JSON.parse(mixed.stdout).files[1]).toEqual({
      file: 'missing.json',
      failure: 'missing.json: cannot read (no such file)',
      findings: [],
    });
  });

  it('lints a bare list under --mode, where a profile would declare approval_mode', async () => {
    writeFileSync(join(dir, 'bare.json'), '[{"tool": "bash", "verdict": "allow"}]');
    const plain = await runCaptured(['check', '--format', 'json', 'bare.json'], dir);
    expect(JSON.stringify(JSON.parse(plain.stdout))).not.toContain('unreachable-unmatched');
    const bypass = await runCaptured(
      ['check', '--format', 'json', '--mode', 'bypass', 'bare.json'],
      dir,
    );
    expect(JSON.stringify(JSON.parse(bypass.stdout))).toContain('unreachable-unmatched');
    const bad = await runCaptured(['check', '--mode', 'sometimes', 'bare.json'], dir);
    expect(bad.code).toBe(2);
  });

  it('refuses a catalog that is not one', async () => {
    const run = await runCaptured(['check', '--tools', 'rules.json', 'rules.json'], dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('has no "name"');
  });
});

describe('rules-lint test', () => {
  it('reports each failing or malformed example at its location, exit 1', async () => {
    const run = await runCaptured(['test', '--format', 'json', 'examples.json'], dir);
    expect(run.code).toBe(1);
    const findings = JSON.parse(run.stdout).files[0].findings;
    expect(
      findings.map((finding: { code: string; pointer: string }) => [finding.code, finding.pointer]),
    ).toEqual([
      ['example_failed', '/examples/1/expect'],
      ['example_invalid', '/examples/3/mode'],
    ]);
    expect(findings[0].message).toBe(
      'example 1: expected granted, but bash is denied (no); rules 0, 1 matched',
    );
    expect(findings[0].line).toBeGreaterThan(1);
    expect(run.stderr).toBe('examples.json: 5 examples: 3 passed, 2 failed\n');
  });

  it('passes a file whose examples all hold', async () => {
    writeFileSync(
      join(dir, 'passing.json'),
      JSON.stringify({ approval_mode: 'ask', examples: [{ tool: 'x', expect: 'parked' }] }),
    );
    const run = await runCaptured(['test', 'passing.json'], dir);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('passing.json: 1 example: 1 passed, 0 failed\n');
  });
});

describe('rules-lint schema and help', () => {
  it('prints the JSON Schema', async () => {
    const run = await runCaptured(['schema'], dir);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).$defs.rule_list.type).toBe('array');
  });

  it('prints usage on --help', async () => {
    const run = await runCaptured(['--help'], dir);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('rules-lint check FILE|FOLDER|GLOB|-...');
  });
});
