import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { doctor } from './doctor.js';
import { installHooks } from './install.js';

/** A HOME and a project with Gemini CLI's hooks installed in the project, and a hook entry that exists. */
function projectInstall() {
  const home = mkdtempSync(join(tmpdir(), 'airlock-hooks-doctor-gemini-'));
  const project = join(home, 'project');
  mkdirSync(project);
  mkdirSync(join(home, '.gemini'));
  writeFileSync(join(home, 'airlock-hook.js'), '');
  const env = { HOME: home, CODEX_HOME: join(home, '.codex') };
  const scope = { kind: 'project', dir: project } as const;
  installHooks({
    agent: 'gemini',
    scope,
    env,
    url: 'http://127.0.0.1:9',
    token: 'alk_agent_x',
    node: process.execPath,
    hookEntry: join(home, 'airlock-hook.js'),
  });
  const files = {
    user: join(home, '.gemini', 'settings.json'),
    project: join(project, '.gemini', 'settings.json'),
  };
  /** Adds `hooksConfig` to a settings file, keeping what it holds. */
  const withHooksConfig = (path: string, hooksConfig: unknown) => {
    let settings: Record<string, unknown> = {};
    try {
      settings = JSON.parse(readFileSync(path, 'utf8'));
    } catch {}
    writeFileSync(path, JSON.stringify({ ...settings, hooksConfig }));
  };
  const hooksCheck = async () =>
    (await doctor({ agents: ['gemini'], scope, env, binaries: { gemini: '/nonexistent' } })).find(
      (check) => check.check === 'gemini hooks',
    );
  return { files, withHooksConfig, hooksCheck };
}

describe('Gemini CLI settings that switch its hooks off', () => {
  it.each(['user', 'project'] as const)(
    '"hooksConfig": {"enabled": false} in the %s settings: doctor fails, naming that file',
    async (where) => {
      const { files, withHooksConfig, hooksCheck } = projectInstall();
      withHooksConfig(files[where], { enabled: false });
      expect(await hooksCheck()).toMatchObject({
        status: 'fail',
        detail: `${files[where]} sets "hooksConfig": {"enabled": false}: Gemini CLI runs no hook, so no call reaches Airlock`,
      });
    },
  );

  it("a project's enabled: true overrides the user's false: no failure", async () => {
    const { files, withHooksConfig, hooksCheck } = projectInstall();
    withHooksConfig(files.user, { enabled: false });
    withHooksConfig(files.project, { enabled: true });
    expect(await hooksCheck()).toBeUndefined();
  });

  it('Airlock\'s hook named in "hooksConfig.disabled" of any file: doctor fails', async () => {
    const { files, withHooksConfig, hooksCheck } = projectInstall();
    withHooksConfig(files.user, { disabled: ['lint', 'airlock'] });
    expect(await hooksCheck()).toMatchObject({
      status: 'fail',
      detail: `${files.user} lists Airlock's hook "airlock" in "hooksConfig.disabled": Gemini CLI skips it, so no call reaches Airlock`,
    });
  });

  it('other hooks disabled, hooks enabled: no failure', async () => {
    const { files, withHooksConfig, hooksCheck } = projectInstall();
    withHooksConfig(files.project, { enabled: true, disabled: ['lint'] });
    expect(await hooksCheck()).toBeUndefined();
  });
});
