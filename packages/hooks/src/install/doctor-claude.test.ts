import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { doctor } from './doctor.js';
import { installHooks } from './install.js';

/** A HOME and a project with Claude Code's hooks installed in the project, and a hook entry that exists. */
function projectInstall() {
  const home = mkdtempSync(join(tmpdir(), 'airlock-hooks-doctor-claude-'));
  const project = join(home, 'project');
  mkdirSync(project);
  mkdirSync(join(home, '.claude'));
  writeFileSync(join(home, 'airlock-hook.js'), '');
  const env = {
    HOME: home,
    CODEX_HOME: join(home, '.codex'),
  };
  const scope = { kind: 'project', dir: project } as const;
  installHooks({
    agent: 'claude-code',
    scope,
    env,
    url: 'http://127.0.0.1:9',
    token: 'alk_agent_x',
    node: process.execPath,
    hookEntry: join(home, 'airlock-hook.js'),
  });
  const files = {
    user: join(home, '.claude', 'settings.json'),
    project: join(project, '.claude', 'settings.json'),
    local: join(project, '.claude', 'settings.local.json'),
  };
  const hooksCheck = async () =>
    (
      await doctor({
        agents: ['claude-code'],
        scope,
        env,
        binaries: { 'claude-code': '/nonexistent' },
      })
    ).find((check) => check.check === 'claude-code hooks');
  return { files, hooksCheck };
}

describe('a project install and the other Claude Code settings it is merged with', () => {
  it.each(['user', 'local'] as const)(
    '"disableAllHooks": true in the %s settings: doctor fails, naming that file',
    async (where) => {
      const { files, hooksCheck } = projectInstall();
      writeFileSync(files[where], '{"disableAllHooks": true}\n');
      expect(await hooksCheck()).toMatchObject({
        status: 'fail',
        detail: `${files[where]} sets "disableAllHooks": true: Claude Code runs no hook, so no call reaches Airlock`,
      });
    },
  );

  it("a project's false overrides the user's true: no failure", async () => {
    const { files, hooksCheck } = projectInstall();
    writeFileSync(files.user, '{"disableAllHooks": true}\n');
    const project = JSON.parse(readFileSync(files.project, 'utf8'));
    writeFileSync(files.project, JSON.stringify({ ...project, disableAllHooks: false }));
    expect(await hooksCheck()).toBeUndefined();
  });

  it('none of them sets it: no failure', async () => {
    const { files, hooksCheck } = projectInstall();
    writeFileSync(files.user, '{"model": "opus"}\n');
    expect(await hooksCheck()).toBeUndefined();
  });
});
