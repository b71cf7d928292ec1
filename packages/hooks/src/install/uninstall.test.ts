import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { HookedAgent } from '@airlock/core';
import { describe, expect, it } from 'vitest';
import { installHooks, uninstallHooks } from './install.js';
import { freshHome } from './test-home.js';

const sandbox = () => freshHome('uninstall');

const PATHS: Record<HookedAgent, string> = {
  'claude-code': join('.claude', 'settings.json'),
  codex: join('.codex', 'config.toml'),
  gemini: join('.gemini', 'settings.json'),
};

function roundTrip(agent: HookedAgent, content: string | null) {
  const { home, env } = sandbox();
  const path = join(home, PATHS[agent]);
  mkdirSync(join(path, '..'), { recursive: true });
  if (content !== null) writeFileSync(path, content);
  const scope = { kind: 'user' } as const;
  const common = { scope, env, url: 'http://127.0.0.1:9', token: 't', node: '/usr/bin/node' };
  installHooks({ agent, ...common, hookEntry: '/opt/airlock/airlock-hook.js' });
  return {
    path,
    uninstall: () => uninstallHooks({ agent, scope, env }),
    install: () => installHooks({ agent, ...common, hookEntry: '/opt/airlock/airlock-hook.js' }),
  };
}

describe('uninstall gives back what the user had', () => {
  it.each([
    ['claude-code', '{"statsId": 12345678901234567890, "ratio": 1.0, "huge": 1e400}'],
    ['claude-code', '{"model":"sonnet","model":"opus"}'],
    ['gemini', '{\n\t"ui": {"theme": "caf\\u00e9"},\n\t"sep": "\\u2028"\n}'],
    ['claude-code', ''],
    ['codex', 'model = "o3"\n\n\n[profiles.a]\nmodel = "x"'],
  ] as const)('%s %j: byte for byte, and the backup is gone', (agent, content) => {
    const { path, uninstall } = roundTrip(agent, content);
    expect(uninstall()).toMatchObject({ outcome: 'restored' });
    expect(readFileSync(path, 'utf8')).toBe(content);
    expect(existsSync(`${path}.airlock-backup`)).toBe(false);
  });

  it.each(['claude-code', 'codex', 'gemini'] as const)(
    '%s: a file install created is removed, not left as {}',
    (agent) => {
      const { path, uninstall } = roundTrip(agent, null);
      expect(uninstall()).toMatchObject({ outcome: 'removed' });
      expect(existsSync(path)).toBe(false);
    },
  );

  it("the user's own edits since install are kept (the file is rewritten without Airlock's entries)", () => {
    const { path, uninstall } = roundTrip('claude-code', '{"model":"A"}');
    const edited = JSON.parse(readFileSync(path, 'utf8'));
    edited.model = 'B';
    writeFileSync(path, JSON.stringify(edited));
    expect(uninstall()).toMatchObject({ outcome: 'rewritten' });
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ model: 'B' });
    expect(existsSync(`${path}.airlock-backup`)).toBe(true);
  });

  it('a later install backs up the file it changes, not the one of an earlier install', () => {
    const { path, uninstall, install } = roundTrip('claude-code', '{"model":"A"}');
    const edited = JSON.parse(readFileSync(path, 'utf8'));
    edited.model = 'B';
    writeFileSync(path, JSON.stringify(edited));
    uninstall();
    const theirs = '{ "model": "C" }';
    writeFileSync(path, theirs);
    install();
    expect(readFileSync(`${path}.airlock-backup`, 'utf8')).toBe(theirs);
    expect(uninstall()).toMatchObject({ outcome: 'restored' });
    expect(readFileSync(path, 'utf8')).toBe(theirs);
  });
});
