import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type DoctorCheck, doctor } from './doctor.js';
import { installHooks } from './install.js';

/** Codex's config.toml with Airlock's block installed after `before`, and a hook entry that exists. */
function installedConfig(before = 'model = "o3"\n') {
  const home = mkdtempSync(join(tmpdir(), 'airlock-hooks-doctor-codex-'));
  mkdirSync(join(home, '.codex'));
  const path = join(home, '.codex', 'config.toml');
  writeFileSync(path, before);
  writeFileSync(join(home, 'airlock-hook.js'), '');
  installHooks({
    agent: 'codex',
    scope: { kind: 'user' },
    env: { HOME: home, CODEX_HOME: join(home, '.codex') },
    url: 'http://127.0.0.1:9',
    token: 'alk_agent_x',
    node: process.execPath,
    hookEntry: join(home, 'airlock-hook.js'),
  });
  const env = {
    HOME: home,
    CODEX_HOME: join(home, '.codex'),
  };
  return { path, env, text: readFileSync(path, 'utf8') };
}

/** Doctor's Codex checks by name, for the config.toml `text` (written to `path` first). */
async function codexChecks(
  installed: ReturnType<typeof installedConfig>,
  text = installed.text,
): Promise<Record<string, DoctorCheck>> {
  writeFileSync(installed.path, text);
  const checks = await doctor({
    agents: ['codex'],
    scope: { kind: 'user' },
    env: installed.env,
    binaries: { codex: '/nonexistent' },
  });
  return Object.fromEntries(
    checks.filter((check) => check.check.startsWith('codex hooks')).map((c) => [c.check, c]),
  );
}

describe("doctor reads Codex's hooks per event", () => {
  it('an install as written: every event registered, nothing failed', async () => {
    const installed = installedConfig();
    const checks = await codexChecks(installed);
    for (const event of ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Stop']) {
      expect(checks[`codex hooks ${event}`], event).toMatchObject({ status: 'ok' });
    }
    expect(Object.values(checks).filter((check) => check.status === 'fail')).toEqual([]);
  });

  it('a block without its PreToolUse section fails that event', async () => {
    const installed = installedConfig();
    const without = installed.text.replace(
      /\[\[hooks\.PreToolUse\]\][\s\S]*?timeout = 120\n\n/,
      '',
    );
    expect(without).not.toContain('PreToolUse');
    const checks = await codexChecks(installed, without);
    expect(checks['codex hooks PreToolUse']).toMatchObject({
      status: 'fail',
      detail: 'not registered',
    });
    expect(checks['codex hooks Stop']?.status).toBe('ok');
  });

  it("writes PreToolUse ending `|| exit 2`, and fails an earlier install's entry without it", async () => {
    const installed = installedConfig();
    const pre = /\[\[hooks\.PreToolUse\.hooks\]\][^[]*?command = "([^"]*)"/.exec(installed.text);
    expect(pre?.[1]).toMatch(/ \|\| exit 2$/);
    // Only the pre-tool entry: a failed report or stop must not read as a refusal.
    const post = /\[\[hooks\.PostToolUse\.hooks\]\][^[]*?command = "([^"]*)"/.exec(installed.text);
    expect(post?.[1]).not.toContain('exit 2');
    const older = installed.text.replaceAll(' || exit 2', '');
    expect((await codexChecks(installed, older))['codex hooks PreToolUse']).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('the hook exits 127 and the agent runs the call'),
    });
  });

  it('a timeout the client cannot answer within fails, naming it', async () => {
    const installed = installedConfig();
    const checks = await codexChecks(
      installed,
      installed.text.replace(/timeout = 120/g, 'timeout = 1'),
    );
    expect(checks['codex hooks PreToolUse']).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('a timeout of 1 s (install writes 120)'),
    });
  });

  it('a matcher narrowed to one tool fails: the other tools never reach Airlock', async () => {
    const installed = installedConfig();
    const narrowed = installed.text.replace(
      '[[hooks.PreToolUse]]\n',
      '[[hooks.PreToolUse]]\nmatcher = "apply_patch"\n',
    );
    expect((await codexChecks(installed, narrowed))['codex hooks PreToolUse']).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('the matcher "apply_patch"'),
    });
  });

  it.each([
    ['[features] hooks = false', '[features]\nhooks = false\n'],
    ['the deprecated codex_hooks = false', '[features]\ncodex_hooks = false # old name\n'],
    ['a dotted key', 'features.hooks = false\n'],
    ['an inline table', 'features = { hooks = false }\n'],
    // Keys TOML reads as features and hooks, spelled otherwise.
    ['an escaped key', '[features]\n"hook\\u0073" = false\n'],
    ['an escaped table name', '["feature\\u0073"]\n\'hooks\' = false\n'],
    ['a quoted dotted key', '"features" . "codex_hooks" = false\n'],
  ])('%s turns Codex hooks off: doctor fails, naming the line', async (_, before) => {
    const installed = installedConfig(before);
    expect((await codexChecks(installed))['codex hooks']).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('turns Codex hooks off'),
    });
  });

  it.each([
    ['hooks switched on', '[features]\nhooks = true\n'],
    ['a hooks key in another table', '[profiles.fast]\nhooks = false\n'],
    ['the words in a multi-line string', 'notes = """\n[features]\nhooks = false\n"""\n'],
  ])('%s: not a switch that turns them off', async (_, before) => {
    const installed = installedConfig(before);
    expect((await codexChecks(installed))['codex hooks']?.status).toBe('ok');
  });
});
