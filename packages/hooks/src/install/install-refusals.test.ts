import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeAll } from './file-writes.js';
import { installHooks } from './install.js';
import { freshHome } from './test-home.js';

const sandbox = () => freshHome('refusal');

const node = { node: '/usr/bin/node', hookEntry: '/opt/airlock/airlock-hook.js' };

/** Every file under a folder, with its content: what a refused command must leave as it was. */
function snapshot(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const name of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    const path = join(dir, name);
    try {
      files[name] = readFileSync(path, 'utf8');
    } catch {
      files[name] = '(directory)';
    }
  }
  return files;
}

describe('a refused install changes nothing', () => {
  function installedClaude() {
    const { home, env } = sandbox();
    installHooks({
      agent: 'claude-code',
      scope: { kind: 'user' },
      env,
      url: 'http://127.0.0.1:4100',
      token: 'alk_agent_WORKING',
      ...node,
    });
    mkdirSync(join(home, '.gemini'));
    return { home, env };
  }

  it('settings that are not JSON: hooks.json and the curl config stay as they were', () => {
    const { home, env } = installedClaude();
    writeFileSync(join(home, '.gemini', 'settings.json'), '{"theme":"GitHub",}\n');
    const before = snapshot(home);
    expect(() =>
      installHooks({
        agent: 'gemini',
        scope: { kind: 'user' },
        env,
        url: 'http://10.0.0.99:4100',
        token: 'alk_agent_OTHER',
        client: 'sh',
        ...node,
      }),
    ).toThrow(/settings\.json is not valid JSON .*; nothing was changed$/);
    expect(snapshot(home)).toEqual(before);
  });

  it('--http for an agent without HTTP hooks: hooks.json stays as it was', () => {
    const { home, env } = installedClaude();
    const before = snapshot(home);
    expect(() =>
      installHooks({
        agent: 'gemini',
        scope: { kind: 'user' },
        env,
        url: 'http://10.0.0.98:1',
        token: 'alk_agent_THIRD',
        http: true,
        ...node,
      }),
    ).toThrow('gemini has no HTTP hooks; install without --http; nothing was changed');
    expect(snapshot(home)).toEqual(before);
  });

  it.skipIf(process.getuid?.() === 0)(
    'a settings file it cannot write: no backup, no hooks.json, a message naming the file',
    () => {
      const { home, env } = sandbox();
      mkdirSync(join(home, '.claude'));
      const path = join(home, '.claude', 'settings.json');
      writeFileSync(path, '{"model":"opus"}\n');
      chmodSync(join(home, '.claude'), 0o555);
      chmodSync(path, 0o444);
      try {
        expect(() =>
          installHooks({
            agent: 'claude-code',
            scope: { kind: 'user' },
            env,
            url: 'http://127.0.0.1:4100',
            token: 't',
            ...node,
          }),
        ).toThrow(': permission denied; nothing was changed');
        expect(existsSync(join(home, '.airlock'))).toBe(false);
        expect(existsSync(`${path}.airlock-backup`)).toBe(false);
      } finally {
        chmodSync(join(home, '.claude'), 0o755);
      }
    },
  );

  it('HTTP hooks with a shell client: refused, nothing written', () => {
    const { home, env } = sandbox();
    expect(() =>
      installHooks({
        agent: 'claude-code',
        scope: { kind: 'user' },
        env,
        url: 'http://127.0.0.1:4100',
        token: 't',
        http: true,
        client: 'bash',
        ...node,
      }),
    ).toThrow('HTTP hooks run no client');
    expect(readdirSync(home)).toEqual([]);
  });

  it('a settings folder that is a file: named, and no hooks.json written', () => {
    const { home, env } = sandbox();
    writeFileSync(join(home, '.claude'), 'not a folder');
    expect(() =>
      installHooks({
        agent: 'claude-code',
        scope: { kind: 'user' },
        env,
        url: 'http://127.0.0.1:4100',
        token: 't',
        ...node,
      }),
    ).toThrow(
      `cannot use ${join(home, '.claude', 'settings.json')}: a part of its path is not a directory; nothing was changed`,
    );
    expect(existsSync(join(home, '.airlock'))).toBe(false);
  });

  it('a write that fails midway puts back what it wrote', () => {
    const { home, env } = sandbox();
    // The settings path is a link into a folder that is not there: the link cannot be written through.
    mkdirSync(join(home, '.claude'));
    symlinkSync(join(home, 'gone', 'x.json'), join(home, '.claude', 'settings.json'));
    expect(() =>
      installHooks({
        agent: 'claude-code',
        scope: { kind: 'user' },
        env,
        url: 'http://127.0.0.1:4100',
        token: 't',
        ...node,
      }),
    ).toThrow(/settings\.json: it is a link to a file that does not exist; nothing was changed/);
    expect(existsSync(join(home, '.airlock'))).toBe(false);
  });

  it('a hooks configuration that is not JSON is named', () => {
    const { home, env } = sandbox();
    mkdirSync(join(home, '.airlock'));
    writeFileSync(join(home, '.airlock', 'hooks.json'), '{not json');
    expect(() =>
      installHooks({ agent: 'codex', scope: { kind: 'user' }, env, url: 'http://x', ...node }),
    ).toThrow(`the hooks configuration ${join(home, '.airlock', 'hooks.json')} is not valid JSON`);
    expect(existsSync(join(home, '.codex'))).toBe(false);
  });

  it('a credential file that cannot be read is refused before anything is written', () => {
    const { home, env } = sandbox();
    expect(() =>
      installHooks({
        agent: 'codex',
        scope: { kind: 'user' },
        env,
        url: 'http://x',
        tokenFile: join(home, 'no-token'),
        ...node,
      }),
    ).toThrow(`cannot use ${join(home, 'no-token')}: it does not exist`);
    expect(readdirSync(home)).toEqual([]);
  });
});

describe('writeAll', () => {
  it('puts back the files it wrote and removes the folders it made when a later write fails', () => {
    const { home } = sandbox();
    writeFileSync(join(home, 'kept'), 'before');
    expect(() =>
      writeAll([
        { path: join(home, 'kept'), content: 'after' },
        { path: join(home, 'new', 'a'), content: 'x' },
        // Checked fine (its folder does not exist yet), but the write above makes `a` a file.
        { path: join(home, 'new', 'a', 'b'), content: 'y' },
      ]),
    ).toThrow(/^cannot use /);
    expect(readFileSync(join(home, 'kept'), 'utf8')).toBe('before');
    expect(readdirSync(home)).toEqual(['kept']);
  });
});
