import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BLOCK_BEGIN } from './codex-toml.js';
import { installHooks, uninstallHooks } from './install.js';
import { freshHome, installBasics } from './test-home.js';

const sandbox = () => freshHome('install');

const common = installBasics;

describe('airlock hooks install / uninstall', () => {
  it('Claude Code: merges after existing hooks, blocks on failure, is idempotent, keeps a backup, uninstalls only its own', () => {
    const { home, env } = sandbox();
    const path = join(home, '.claude', 'settings.json');
    mkdirSync(join(home, '.claude'));
    const theirs = {
      model: 'x',
      hooks: {
        PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: './lint.sh' }] }],
      },
    };
    writeFileSync(path, JSON.stringify(theirs));
    const first = installHooks({ agent: 'claude-code', ...common(env) });
    expect(first).toMatchObject({
      changed: true,
      settingsPath: path,
      backupPath: `${path}.airlock-backup`,
    });
    expect(JSON.parse(readFileSync(`${path}.airlock-backup`, 'utf8'))).toEqual(theirs);
    const settings = JSON.parse(readFileSync(path, 'utf8'));
    expect(settings.model).toBe('x');
    expect(settings.hooks.PreToolUse).toEqual([
      theirs.hooks.PreToolUse[0],
      {
        matcher: '*',
        hooks: [
          {
            type: 'command',
            command:
              '/usr/bin/node /opt/airlock/airlock-hook.js claude-code --config ' +
              join(home, '.airlock', 'hooks.json'),
            timeout: 120,
            onFailure: 'block',
          },
        ],
      },
    ]);
    expect(Object.keys(settings.hooks).sort()).toEqual([
      'PostToolUse',
      'PostToolUseFailure',
      'PreCompact',
      'PreToolUse',
      'SessionStart',
      'Stop',
      'UserPromptSubmit',
    ]);
    expect(settings.hooks.Stop[0].matcher).toBeUndefined();
    // What ran is reported from the background: the agent does not wait for it.
    for (const event of ['PostToolUse', 'PostToolUseFailure']) {
      expect(settings.hooks[event][0].hooks[0]).toMatchObject({ type: 'command', async: true });
    }
    expect(settings.hooks.PreToolUse[1].hooks[0].async).toBeUndefined();
    expect(settings.hooks.Stop[0].hooks[0].async).toBeUndefined();
    const config = join(home, '.airlock', 'hooks.json');
    expect(JSON.parse(readFileSync(config, 'utf8'))).toEqual({
      url: 'http://127.0.0.1:4100',
      token: 'alk_agent_x',
    });
    expect(statSync(config).mode & 0o777).toBe(0o600);

    const text = readFileSync(path, 'utf8');
    expect(installHooks({ agent: 'claude-code', ...common(env) }).changed).toBe(false);
    expect(readFileSync(path, 'utf8')).toBe(text);

    expect(uninstallHooks({ agent: 'claude-code', scope: { kind: 'user' }, env })).toEqual({
      settingsPath: path,
      removed: 7,
      outcome: 'restored',
    });
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual(theirs);
  });

  it('Claude Code over HTTP: every tool and turn-start entry an HTTP hook on the kernel, the pre-tool one blocking on failure; Stop the Node.js client', () => {
    const { home, env } = sandbox();
    const path = join(home, '.claude', 'settings.json');
    installHooks({ agent: 'claude-code', ...common(env), http: true, waitMs: 5000 });
    const settings = JSON.parse(readFileSync(path, 'utf8'));
    const only = (event: string) => settings.hooks[event][0].hooks[0];
    expect(only('PreToolUse')).toEqual({
      type: 'http',
      url: 'http://127.0.0.1:4100/agent_api/v1/hooks/claude-code/wait-5000',
      headers: { Authorization: 'Bearer $AIRLOCK_TOKEN' },
      allowedEnvVars: ['AIRLOCK_TOKEN'],
      timeout: 120,
      onFailure: 'block',
    });
    // Claude Code runs only command hooks in the background (`async`): the report waits here.
    for (const event of ['SessionStart', 'UserPromptSubmit', 'PostToolUse', 'PreCompact']) {
      expect(only(event)).toMatchObject({ type: 'http', url: only('PreToolUse').url });
      expect(only(event).onFailure).toBeUndefined();
      expect(only(event).async).toBeUndefined();
    }
    // The turn's end reads the transcript for calls no hook saw: only the Node.js client does.
    expect(only('Stop')).toMatchObject({ type: 'command', timeout: 120 });
    expect(only('Stop').command).toMatch(
      /airlock-hook\.js'? claude-code --config .* --wait-ms 5000$/,
    );
    // The credential stays in the agent's environment, never in its settings.
    expect(readFileSync(path, 'utf8')).not.toContain('alk_agent_x');
    const text = readFileSync(path, 'utf8');
    expect(
      installHooks({ agent: 'claude-code', ...common(env), http: true, waitMs: 5000 }).changed,
    ).toBe(false);
    expect(readFileSync(path, 'utf8')).toBe(text);
    expect(uninstallHooks({ agent: 'claude-code', scope: { kind: 'user' }, env }).removed).toBe(7);
  });

  it('Gemini CLI: timeouts in milliseconds, into a project folder', () => {
    const { home, env } = sandbox();
    const project = join(home, 'repo');
    mkdirSync(project);
    const result = installHooks({
      agent: 'gemini',
      ...common(env),
      scope: { kind: 'project', dir: project },
    });
    expect(result.settingsPath).toBe(join(project, '.gemini', 'settings.json'));
    expect(result.backupPath).toBeNull();
    const settings = JSON.parse(readFileSync(result.settingsPath, 'utf8'));
    expect(settings.hooks.BeforeTool).toEqual([
      {
        matcher: '.*',
        hooks: [
          {
            name: 'airlock',
            type: 'command',
            command: expect.stringContaining('airlock-hook.js gemini --config'),
            timeout: 120_000,
          },
        ],
      },
    ]);
    expect(Object.keys(settings.hooks)).toEqual([
      'SessionStart',
      'BeforeAgent',
      'BeforeTool',
      'AfterTool',
      'AfterAgent',
    ]);
    uninstallHooks({ agent: 'gemini', scope: { kind: 'project', dir: project }, env });
    // Install created the file: uninstall takes it away rather than leave `{}`.
    expect(existsSync(result.settingsPath)).toBe(false);
  });

  it('Codex: one managed block at the end of config.toml, replaced in place, removed whole', () => {
    const { home, env } = sandbox();
    mkdirSync(join(home, '.codex'));
    const path = join(home, '.codex', 'config.toml');
    const theirs = 'model = "gpt"\n\n[model_providers.local]\nbase_url = "http://127.0.0.1:9"\n';
    writeFileSync(path, theirs);
    installHooks({ agent: 'codex', ...common(env), waitMs: 5000 });
    const text = readFileSync(path, 'utf8');
    expect(text.startsWith(theirs)).toBe(true);
    expect(text).toContain(BLOCK_BEGIN);
    expect(text).toContain('[[hooks.PreToolUse]]\n[[hooks.PreToolUse.hooks]]\ntype = "command"\n');
    expect(text).toContain('--wait-ms 5000');
    expect(text).toContain('timeout = 120');
    expect(installHooks({ agent: 'codex', ...common(env), waitMs: 5000 }).changed).toBe(false);
    expect(text.split(BLOCK_BEGIN).length).toBe(2);
    expect(uninstallHooks({ agent: 'codex', scope: { kind: 'user' }, env }).removed).toBe(1);
    expect(readFileSync(path, 'utf8')).toBe(theirs);
  });

  it('refuses a settings file it cannot read, and changes nothing', () => {
    const { home, env } = sandbox();
    mkdirSync(join(home, '.claude'));
    const path = join(home, '.claude', 'settings.json');
    writeFileSync(path, '{ not json');
    expect(() => installHooks({ agent: 'claude-code', ...common(env) })).toThrow(/not valid JSON/);
    expect(readFileSync(path, 'utf8')).toBe('{ not json');
    expect(existsSync(`${path}.airlock-backup`)).toBe(false);
    writeFileSync(path, '[]');
    expect(() => uninstallHooks({ agent: 'claude-code', scope: { kind: 'user' }, env })).toThrow(
      /JSON object/,
    );
  });
});
