import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type DoctorCheck, doctor } from './doctor.js';

/**
 * Codex's administrator files outrank the config.toml that holds Airlock's
 * hooks. Each setting below was seen with real Codex 0.169 to let a call run
 * that Airlock would have refused: doctor fails it.
 */

/** Doctor's findings on Codex's admin files, with `files` written to a managed dir of their own. */
async function adminChecks(files: Record<string, string>): Promise<DoctorCheck[]> {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-codex-managed-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const home = mkdtempSync(join(tmpdir(), 'airlock-codex-managed-home-'));
  const checks = await doctor({
    agents: ['codex'],
    scope: { kind: 'user' },
    env: { HOME: home, CODEX_HOME: join(home, '.codex') },
    binaries: { codex: '/nonexistent' },
    codexManagedDir: dir,
  });
  return checks.filter((check) => check.check === 'codex admin settings');
}

describe("doctor reads Codex's administrator settings", () => {
  it('none: says so, and that MDM and cloud requirements are not read', async () => {
    const [check, ...rest] = await adminChecks({});
    expect(rest).toEqual([]);
    expect(check).toMatchObject({ status: 'ok' });
    expect(check?.detail).toContain('cloud');
  });

  it.each([
    ['[features]\nhooks = false\n', 'hooks = false'],
    ['[features]\ncodex_hooks = false\n', 'codex_hooks = false'],
    ['features.hooks = false\n', 'features.hooks = false'],
  ])('requirements.toml turning hooks off fails (%j)', async (text, line) => {
    const [check] = await adminChecks({ 'requirements.toml': text });
    expect(check).toMatchObject({ status: 'fail' });
    expect(check?.detail).toContain(line);
    expect(check?.detail).toContain('requirements.toml');
  });

  it('requirements.toml keeping only its managed hooks fails, or warns when they name Airlock', async () => {
    const [only] = await adminChecks({
      'requirements.toml': 'allow_managed_hooks_only = true\n',
    });
    expect(only).toMatchObject({ status: 'fail' });
    expect(only?.detail).toContain('allow_managed_hooks_only = true');
    // The key as TOML reads it, spelled otherwise.
    const [escaped] = await adminChecks({
      'requirements.toml': '"allow_managed_hooks_onl\\u0079" = true\n',
    });
    expect(escaped).toMatchObject({ status: 'fail' });
    const [named] = await adminChecks({
      'requirements.toml':
        'allow_managed_hooks_only = true\n[[hooks.PreToolUse]]\n[[hooks.PreToolUse.hooks]]\ntype = "command"\ncommand = "/usr/bin/node /opt/airlock/airlock-hook.js codex || exit 2"\n',
    });
    expect(named).toMatchObject({ status: 'warn' });
    // The key inside a table is no top-level requirement.
    const [nested] = await adminChecks({
      'requirements.toml': '[features]\nallow_managed_hooks_only = true\nhooks = true\n',
    });
    expect(nested).toMatchObject({ status: 'ok' });
  });

  it('managed_config.toml turning hooks off for every launch fails', async () => {
    const checks = await adminChecks({ 'managed_config.toml': '[features]\nhooks = false\n' });
    expect(checks).toEqual([expect.objectContaining({ status: 'fail' })]);
    expect(checks[0]?.detail).toContain('managed_config.toml');
  });

  it.skipIf(process.getuid?.() === 0)('a requirements.toml it cannot read warns', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'airlock-codex-managed-'));
    writeFileSync(join(dir, 'requirements.toml'), '[features]\nhooks = false\n');
    chmodSync(join(dir, 'requirements.toml'), 0o000);
    const checks = await doctor({
      agents: ['codex'],
      scope: { kind: 'user' },
      env: { HOME: dir, CODEX_HOME: join(dir, '.codex') },
      binaries: { codex: '/nonexistent' },
      codexManagedDir: dir,
    });
    expect(checks.find((check) => check.check === 'codex admin settings')).toMatchObject({
      status: 'warn',
    });
  });
});
