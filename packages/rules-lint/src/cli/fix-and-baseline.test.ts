import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildDist } from '../testing/build-dist.js';
import { runCaptured } from '../testing/capture.js';

const dir = mkdtempSync(join(tmpdir(), 'rules-lint-fix-'));
const LONG = 'x'.repeat(300);
const POLICY = [
  '// team policy: keep these comments',
  '[',
  '  // secrets',
  '  {"tool": "write", "path": "path", "match": ".env", "verdict": "deny", "reason": "secrets"}, // why: .env files',
  `  {"tool": "bash",   "verdict": "deny", "reason": "${LONG}"},`,
  '  // reads are fine',
  '  {"tool": "read", "verdict": "allow"},',
  '  {"tool": "read", "verdict": "allow"}',
  ']',
  '',
].join('\n');

function file(name: string, text: string): string {
  writeFileSync(join(dir, name), text);
  return name;
}

describe('check --fix and --fix-unsafe', () => {
  it('--fix applies safe fixes only, in place, keeping comments and the layout of untouched rules', async () => {
    const name = file('safe.jsonc', POLICY);
    const run = await runCaptured(['check', '--fix', name], dir);
    expect(run.stderr).toContain('safe.jsonc: applied 1 fix');
    const fixed = readFileSync(join(dir, name), 'utf8');
    expect(fixed).toBe(POLICY.replace(LONG, 'x'.repeat(256)));
    const again = await runCaptured(['check', '--fix', name], dir);
    expect(again.stderr).not.toContain('applied');
    expect(readFileSync(join(dir, name), 'utf8')).toBe(fixed);
  });

  it('fixes the copy of a key written twice that JSON.parse and the kernel keep: the last', async () => {
    const reason = file(
      'twice-reason.json',
      `[\n  {"tool": "bash", "verdict": "deny", "reason": "short", "reason": "${LONG}"}\n]\n`,
    );
    const reasonRun = await runCaptured(['check', '--fix', reason], dir);
    expect(reasonRun.stderr).toContain('twice-reason.json: applied 1 fix\n');
    expect(JSON.parse(readFileSync(join(dir, reason), 'utf8'))[0].reason).toBe('x'.repeat(256));
    const match = file(
      'twice-match.json',
      '[\n  {"tool": "bash", "path": "command", "match": "*rm*", "match": ".env", "verdict": "deny", "reason": "r"}\n]\n',
    );
    const matchRun = await runCaptured(['check', '--fix-unsafe', match], dir);
    expect(matchRun.stderr).toContain('twice-match.json: applied 1 fix\n');
    expect(JSON.parse(readFileSync(join(dir, match), 'utf8'))[0].match).toBe('*.env');
  });

  it('keeps the byte order mark of a file it fixes', async () => {
    const name = file(
      'bom.json',
      `\uFEFF[{"tool": "bash", "verdict": "deny", "reason": "${LONG}"}]\n`,
    );
    const run = await runCaptured(['check', '--fix', name], dir);
    expect(run.stderr).toContain('bom.json: applied 1 fix\n');
    expect(readFileSync(join(dir, name), 'utf8')).toBe(
      `\uFEFF[{"tool": "bash", "verdict": "deny", "reason": "${'x'.repeat(256)}"}]\n`,
    );
  });

  it('--fix-unsafe also applies unsafe fixes, minimal and idempotent', async () => {
    const name = file('unsafe.jsonc', POLICY);
    const run = await runCaptured(['check', '--fix-unsafe', '--format', 'json', name], dir);
    expect(run.stderr).toContain('unsafe.jsonc: applied 3 fixes');
    const fixed = readFileSync(join(dir, name), 'utf8');
    expect(fixed).toBe(
      [
        '// team policy: keep these comments',
        '[',
        '  // secrets',
        '  {"tool": "write", "path": "path", "match": "*.env", "verdict": "deny", "reason": "secrets"}, // why: .env files',
        `  {"tool": "bash",   "verdict": "deny", "reason": "${'x'.repeat(256)}"},`,
        '  // reads are fine',
        '  {"tool": "read", "verdict": "allow"}',
        ']',
        '',
      ].join('\n'),
    );
    // The report describes the file as fixed.
    expect(JSON.parse(run.stdout).summary).toEqual({ errors: 0, warnings: 0, infos: 0 });
    const again = await runCaptured(['check', '--fix-unsafe', name], dir);
    expect(again.stderr).toBe('');
    expect(readFileSync(join(dir, name), 'utf8')).toBe(fixed);
  });

  it('refuses --fix on standard input', async () => {
    const run = await runCaptured(['check', '--fix', '-'], dir, '[]');
    expect(run.code).toBe(2);
  });
});

describe('check --baseline', () => {
  it('writes the current findings, then accepts exactly those, also after rules move', async () => {
    const name = file(
      'legacy.json',
      '[\n  {"tool": "bash", "path": "command", "match": "*rm -rf", "verdict": "deny", "reason": "r"},\n  {"tool": "bash", "verdict": "deny"}\n]\n',
    );
    const write = await runCaptured(
      ['check', '--baseline', 'baseline.json', '--write-baseline', name],
      dir,
    );
    expect(write.stderr).toContain('recorded 2 findings in baseline.json');
    const baseline = JSON.parse(readFileSync(join(dir, 'baseline.json'), 'utf8'));
    expect(baseline.findings.map((entry: { code: string }) => entry.code)).toEqual([
      'suffix-anchored-fragment',
      'deny-without-reason',
    ]);

    const clean = await runCaptured(
      ['check', '--format', 'json', '--error-on-warnings', '--baseline', 'baseline.json', name],
      dir,
    );
    expect(clean.code).toBe(0);
    expect(JSON.parse(clean.stdout).summary).toEqual({ errors: 0, warnings: 0, infos: 0 });
    expect(clean.stderr).toContain('2 finding(s) accepted by baseline.json');

    // A new rule above the old ones: the old findings stay accepted, the new one is reported.
    file(
      name,
      '[\n  {"tool": "write", "path": "path", "match": ".env", "verdict": "deny", "reason": "s"},\n  {"tool": "bash", "path": "command", "match": "*rm -rf", "verdict": "deny", "reason": "r"},\n  {"tool": "bash", "verdict": "deny"}\n]\n',
    );
    const moved = await runCaptured(
      ['check', '--format', 'json', '--baseline', 'baseline.json', name],
      dir,
    );
    expect(
      JSON.parse(moved.stdout).files[0].findings.map((finding: { code: string }) => finding.code),
    ).toEqual(['fragment-without-star']);
  });

  it('writing a baseline for a folder with error findings succeeds: exit 0, a count, no findings printed', async () => {
    mkdirSync(join(dir, 'policies'), { recursive: true });
    file('policies/rules-lint.config.json', '{"rules": {"deny-without-reason": "error"}}');
    file(
      'policies/a.json',
      '[{"tool": "bash", "verdict": "deny"}, {"tool": "rm", "verdict": "deny"}]',
    );
    file('policies/b.json', '[{"tool": "curl", "verdict": "deny"}]');
    const write = await runCaptured(
      ['check', '--baseline', 'b.json', '--write-baseline', 'policies/'],
      dir,
    );
    expect(write.code).toBe(0);
    expect(write.stderr).toContain('recorded 3 findings in b.json');
    expect(write.stdout).not.toContain('deny-without-reason');
    const again = await runCaptured(['check', '--baseline', 'b.json', 'policies/'], dir);
    expect(again.code).toBe(0);
    // Without the baseline the same folder still fails.
    expect((await runCaptured(['check', 'policies/'], dir)).code).toBe(1);
  });

  it('refuses a missing or malformed baseline, exit 2', async () => {
    expect((await runCaptured(['check', '--baseline', 'nope.json', 'legacy.json'], dir)).code).toBe(
      2,
    );
    file('not-baseline.json', '{"findings": 3}');
    const bad = await runCaptured(['check', '--baseline', 'not-baseline.json', 'legacy.json'], dir);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('not a rules-lint baseline');
    expect((await runCaptured(['check', '--write-baseline', 'legacy.json'], dir)).code).toBe(2);
  });
});

describe('the built CLI, check --fix with --fix-unsafe', () => {
  let cli = '';
  beforeAll(() => {
    cli = buildDist();
  });
  const run = (...args: string[]) => {
    const result = spawnSync(process.execPath, [cli, ...args], {
      cwd: dir,
      encoding: 'utf8',
      input: '[]',
      timeout: 20_000,
    });
    return { code: result.status, stdout: result.stdout, stderr: result.stderr };
  };

  it('takes both: --fix-unsafe implies --fix, so both together fix exactly what --fix-unsafe does', () => {
    const alone = file('alone.jsonc', POLICY);
    const both = file('both.jsonc', POLICY);
    const unsafeOnly = run('check', '--fix-unsafe', alone);
    const together = run('check', '--fix', '--fix-unsafe', both);
    expect(together.code).toBe(0);
    expect(together.stderr).toBe(unsafeOnly.stderr.replace('alone.jsonc', 'both.jsonc'));
    expect(together.stderr).toContain('both.jsonc: applied 3 fixes');
    expect(readFileSync(join(dir, both), 'utf8')).toBe(readFileSync(join(dir, alone), 'utf8'));
    expect(readFileSync(join(dir, both), 'utf8')).toContain('"match": "*.env"');
  });

  it('says so in --help, and names the flag given when refusing standard input', () => {
    expect(run('--help').stdout).toContain('[--fix] [--fix-unsafe (implies --fix)]');
    for (const flags of [['--fix'], ['--fix-unsafe'], ['--fix', '--fix-unsafe']]) {
      const refused = run('check', ...flags, '-');
      expect(refused.code, flags.join(' ')).toBe(2);
      expect(refused.stderr, flags.join(' ')).toBe(
        `rules-lint: ${flags.at(-1)} cannot write to standard input; fix a file instead\n`,
      );
    }
  });
});
