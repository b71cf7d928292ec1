import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type DoctorCheck, doctor } from './doctor.js';

/**
 * Claude Code's managed settings outrank the settings that hold Airlock's
 * hooks. With Claude Code 2.1, each setting below in
 * /etc/claude-code/managed-settings.json let a call run that Airlock would
 * have refused: doctor fails it.
 */

/** Doctor's findings on Claude Code's managed settings, with `files` written to a managed dir of their own. */
async function managedChecks(files: Record<string, string>): Promise<DoctorCheck[]> {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-claude-managed-'));
  mkdirSync(join(dir, 'managed-settings.d'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const home = mkdtempSync(join(tmpdir(), 'airlock-claude-managed-home-'));
  const checks = await doctor({
    agents: ['claude-code'],
    scope: { kind: 'user' },
    env: { HOME: home, CODEX_HOME: join(home, '.codex') },
    binaries: { 'claude-code': '/nonexistent' },
    claudeManagedDir: dir,
  });
  return checks.filter((check) => check.check === 'claude-code admin settings');
}

describe("doctor reads Claude Code's managed settings", () => {
  it('none, or none that touch hooks: ok', async () => {
    expect(await managedChecks({})).toEqual([expect.objectContaining({ status: 'ok' })]);
    expect(await managedChecks({ 'managed-settings.json': '{"disableAllHooks": false}' })).toEqual([
      expect.objectContaining({ status: 'ok' }),
    ]);
  });

  it('"disableAllHooks": true fails, in the main file or a drop-in', async () => {
    const [main] = await managedChecks({ 'managed-settings.json': '{"disableAllHooks": true}' });
    expect(main).toMatchObject({ status: 'fail' });
    expect(main?.detail).toContain('managed-settings.json sets "disableAllHooks": true');
    const [dropIn] = await managedChecks({
      'managed-settings.d/10-policy.json': '{"disableAllHooks": true}',
    });
    expect(dropIn).toMatchObject({ status: 'fail' });
    expect(dropIn?.detail).toContain('10-policy.json');
  });

  it('"allowManagedHooksOnly": true fails, or warns when the managed hooks name Airlock', async () => {
    const [only] = await managedChecks({
      'managed-settings.json': '{"allowManagedHooksOnly": true}',
    });
    expect(only).toMatchObject({ status: 'fail' });
    const named = JSON.stringify({
      allowManagedHooksOnly: true,
      hooks: {
        PreToolUse: [
          { hooks: [{ type: 'command', command: 'node /opt/airlock-hook.js claude-code' }] },
        ],
      },
    });
    const [warned] = await managedChecks({ 'managed-settings.json': named });
    expect(warned).toMatchObject({ status: 'warn' });
  });

  it('a file that is not JSON warns', async () => {
    const [check] = await managedChecks({ 'managed-settings.json': '{"disableAllHooks": tru' });
    expect(check).toMatchObject({ status: 'warn' });
  });
});
