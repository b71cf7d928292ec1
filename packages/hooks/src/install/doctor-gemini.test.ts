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
  mkdirSync(join(home, 'system'));
  // The administrator's files, where Gemini CLI reads them when these are set (none written yet).
  const env = {
    HOME: home,
    CODEX_HOME: join(home, '.codex'),
    GEMINI_CLI_SYSTEM_SETTINGS_PATH: join(home, 'system', 'settings.json'),
    GEMINI_CLI_SYSTEM_DEFAULTS_PATH: join(home, 'system', 'system-defaults.json'),
  };
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
    system: env.GEMINI_CLI_SYSTEM_SETTINGS_PATH,
    defaults: env.GEMINI_CLI_SYSTEM_DEFAULTS_PATH,
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

  // Gemini CLI 0.61 with "enabled": false in /etc/gemini-cli/settings.json ran a call Airlock refuses.
  it("the administrator's system settings win over a project's enabled: true: doctor fails", async () => {
    const { files, withHooksConfig, hooksCheck } = projectInstall();
    withHooksConfig(files.project, { enabled: true });
    withHooksConfig(files.system, { enabled: false });
    expect(await hooksCheck()).toMatchObject({
      status: 'fail',
      detail: `${files.system} sets "hooksConfig": {"enabled": false}: Gemini CLI runs no hook, so no call reaches Airlock`,
    });
    withHooksConfig(files.system, { disabled: ['airlock'] });
    expect(await hooksCheck()).toMatchObject({ status: 'fail' });
  });

  it('the system defaults count where no other file decides', async () => {
    const { files, withHooksConfig, hooksCheck } = projectInstall();
    withHooksConfig(files.defaults, { enabled: false });
    expect(await hooksCheck()).toMatchObject({ status: 'fail' });
    withHooksConfig(files.user, { enabled: true });
    expect(await hooksCheck()).toBeUndefined();
  });

  it('other hooks disabled, hooks enabled: no failure', async () => {
    const { files, withHooksConfig, hooksCheck } = projectInstall();
    withHooksConfig(files.project, { enabled: true, disabled: ['lint'] });
    expect(await hooksCheck()).toBeUndefined();
  });
});

describe('a project install and the folder trust of Gemini CLI', () => {
  const trustCheck = async (env: Record<string, string>, project: string) =>
    (
      await doctor({
        agents: ['gemini'],
        scope: { kind: 'project', dir: project },
        env: { HOME: env.HOME as string, CODEX_HOME: join(env.HOME as string, '.codex'), ...env },
        binaries: { gemini: '/nonexistent' },
      })
    ).find((check) => check.check === 'gemini folder trust');
  function home() {
    const dir = mkdtempSync(join(tmpdir(), 'airlock-hooks-gemini-trust-'));
    const project = join(dir, 'work', 'project');
    mkdirSync(project, { recursive: true });
    mkdirSync(join(dir, '.gemini'));
    return { env: { HOME: dir }, project, trusted: join(dir, '.gemini', 'trustedFolders.json') };
  }

  it('an undecided folder is not trusted: doctor fails, saying the project settings are ignored', async () => {
    const { env, project, trusted } = home();
    expect(await trustCheck(env, project)).toMatchObject({
      status: 'fail',
      detail: `${project} is not trusted in ${trusted} (folder trust is on): Gemini CLI ignores ${join(project, '.gemini', 'settings.json')}, and so runs none of Airlock's hooks`,
    });
  });

  it('DO_NOT_TRUST of the folder fails; TRUST_PARENT of a sibling trusts it', async () => {
    const { env, project, trusted } = home();
    writeFileSync(trusted, JSON.stringify({ [project]: 'DO_NOT_TRUST' }));
    expect(await trustCheck(env, project)).toMatchObject({ status: 'fail' });
    writeFileSync(trusted, JSON.stringify({ [join(project, '..', 'other')]: 'TRUST_PARENT' }));
    expect(await trustCheck(env, project)).toMatchObject({ status: 'ok' });
  });

  it('the longest rule wins: a distrusted project inside a trusted folder fails', async () => {
    const { env, project, trusted } = home();
    writeFileSync(
      trusted,
      JSON.stringify({ [join(project, '..')]: 'TRUST_FOLDER', [project]: 'DO_NOT_TRUST' }),
    );
    expect(await trustCheck(env, project)).toMatchObject({ status: 'fail' });
  });

  it('GEMINI_CLI_TRUST_WORKSPACE=true, or folder trust off, trusts it; a user install is not checked', async () => {
    const { env, project } = home();
    expect(await trustCheck({ ...env, GEMINI_CLI_TRUST_WORKSPACE: 'true' }, project)).toMatchObject(
      {
        status: 'ok',
      },
    );
    writeFileSync(
      join(env.HOME, '.gemini', 'settings.json'),
      JSON.stringify({ security: { folderTrust: { enabled: false } } }),
    );
    expect(await trustCheck(env, project)).toMatchObject({ status: 'ok' });
    const user = (
      await doctor({
        agents: ['gemini'],
        scope: { kind: 'user' },
        env: { HOME: env.HOME, CODEX_HOME: join(env.HOME, '.codex') },
        binaries: { gemini: '/nonexistent' },
      })
    ).find((check) => check.check === 'gemini folder trust');
    expect(user).toBeUndefined();
  });
});
