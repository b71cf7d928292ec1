import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCaptured } from '../testing/capture.js';

// Not JSON: a parse error quoting the text would put the key in the CI log.
const KEY = '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA-secret-body\n';
const SECRET_JSON = '{"s3cr3t-token": true}\n';
const RULES =
  '{"approval_mode": "rules", "approval_rules": [{"tool": "read", "verdict": "allow"}]}\n';

/** A working folder `repo` whose links lead to a folder `outside` holding a key and a JSON secret. */
function layout(): { repo: string; outside: string } {
  const root = mkdtempSync(join(tmpdir(), 'rules-lint-reads-'));
  const repo = join(root, 'repo');
  const outside = join(root, 'outside');
  mkdirSync(repo);
  mkdirSync(outside);
  writeFileSync(join(outside, 'id_rsa'), KEY);
  writeFileSync(join(outside, 'secret.json'), SECRET_JSON);
  writeFileSync(join(repo, 'rules.json'), RULES);
  symlinkSync(join(outside, 'id_rsa'), join(repo, 'fixture.json'));
  symlinkSync(join(outside, 'secret.json'), join(repo, 'linked.json'));
  symlinkSync(outside, join(repo, 'shared'));
  return { repo, outside };
}

function expectRefused(run: { code: number; stdout: string; stderr: string }, shown: string) {
  expect(run.code).toBe(2);
  expect(run.stderr).toContain(
    `${shown}: not read (outside-working-folder): a symbolic link leads it outside the working folder`,
  );
  const printed = run.stdout + run.stderr;
  expect(printed).not.toContain('secret-body');
  expect(printed).not.toContain('s3cr3t');
  expect(printed).not.toContain('OPENSSH');
}

describe('every command refuses to read through a link leading out of the working folder', () => {
  it('test: a linked fixture, directly or through a linked folder', async () => {
    const { repo } = layout();
    for (const file of ['fixture.json', 'linked.json', 'shared/secret.json']) {
      expectRefused(await runCaptured(['test', file], repo), file);
      expectRefused(await runCaptured(['test', '--format', 'json', file], repo), file);
    }
  });

  it('eval: --rules, and the overlays of a rule set', async () => {
    const { repo } = layout();
    for (const file of ['fixture.json', 'linked.json']) {
      expectRefused(
        await runCaptured(['eval', '--rules', file, '--tool', 'read', '--mode', 'rules'], repo),
        file,
      );
      expectRefused(
        await runCaptured(
          ['eval', '--rule-set', 'read-only', '--tool', 'read', '--user', file],
          repo,
        ),
        file,
      );
      expectRefused(
        await runCaptured(
          ['eval', '--rule-set', 'read-only', '--tool', 'read', '--rules', file],
          repo,
        ),
        file,
      );
    }
  });

  it('check: --config, --tools and --baseline, and a nearest config that is a link', async () => {
    const { repo } = layout();
    for (const option of ['--config', '--tools', '--baseline'])
      expectRefused(
        await runCaptured(['check', option, 'fixture.json', 'rules.json'], repo),
        'fixture.json',
      );
    symlinkSync(join(repo, 'linked.json'), join(repo, 'rules-lint.config.json'));
    const run = await runCaptured(['check', 'rules.json'], repo);
    expectRefused(run, join(repo, 'rules-lint.config.json'));
  });

  it('still reads a link that stays inside, and a plain path the command line names outside', async () => {
    const { repo, outside } = layout();
    symlinkSync('rules.json', join(repo, 'alias.json'));
    writeFileSync(join(outside, 'named.json'), RULES);
    const inside = await runCaptured(['test', '--allow-empty', 'alias.json'], repo);
    expect(inside.code).toBe(0);
    const named = await runCaptured(
      ['eval', '--rules', join(outside, 'named.json'), '--tool', 'read'],
      repo,
    );
    expect(named.code).toBe(0);
    expect(JSON.parse(named.stdout).outcome).toBe('granted');
  });
});
