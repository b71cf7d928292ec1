import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { installHooks, uninstallHooks } from './install.js';
import { freshHome, installBasics } from './test-home.js';

/** A settings file written on Windows (or by an editor set to CRLF), in a fresh home. */
function crlfHome(relative: string, lines: string[]) {
  const { home, env } = freshHome('crlf');
  const path = join(home, relative);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, `${lines.join('\r\n')}\r\n`);
  return { path, env };
}

/** Whether every line break of `text` is CRLF. */
const onlyCrlf = (text: string) => !/(^|[^\r])\n/.test(text) && text.includes('\r\n');

describe('settings files written with CRLF line breaks', () => {
  it.each([
    ['claude-code', join('.claude', 'settings.json'), ['{', '  "model": "opus"', '}']],
    ['gemini', join('.gemini', 'settings.json'), ['{', '  "ui": { "theme": "x" }', '}']],
    ['codex', join('.codex', 'config.toml'), ['model = "o3"', '', '[profiles.a]', 'model = "x"']],
  ] as const)('%s: install keeps CRLF', (agent, relative, lines) => {
    const { path, env } = crlfHome(relative, [...lines]);
    installHooks({ agent, ...installBasics(env) });
    const after = readFileSync(path, 'utf8');
    expect(after).toContain('airlock');
    expect(onlyCrlf(after)).toBe(true);
  });

  it.each([
    ['claude-code', join('.claude', 'settings.json'), ['{', '  "model": "opus"', '}']],
    ['codex', join('.codex', 'config.toml'), ['model = "o3"', '', '[profiles.a]', 'model = "x"']],
  ] as const)(
    '%s: install then uninstall gives the CRLF file back byte for byte',
    (agent, relative, lines) => {
      const { path, env } = crlfHome(relative, [...lines]);
      const original = readFileSync(path, 'utf8');
      installHooks({ agent, ...installBasics(env) });
      expect(uninstallHooks({ agent, scope: { kind: 'user' }, env })).toMatchObject({
        outcome: 'restored',
      });
      expect(readFileSync(path, 'utf8')).toBe(original);
    },
  );

  it("codex: uninstall after the user's own edit finds Airlock's block and keeps CRLF", () => {
    const { path, env } = crlfHome(join('.codex', 'config.toml'), ['model = "o3"']);
    installHooks({ agent: 'codex', ...installBasics(env) });
    // The user's editor adds a line of its own, in CRLF, so the backup no longer matches.
    writeFileSync(path, `approval_policy = "never"\r\n${readFileSync(path, 'utf8')}`);
    expect(uninstallHooks({ agent: 'codex', scope: { kind: 'user' }, env })).toMatchObject({
      removed: 1,
      outcome: 'rewritten',
    });
    const after = readFileSync(path, 'utf8');
    expect(after).toBe('approval_policy = "never"\r\nmodel = "o3"\r\n');
  });

  it('claude-code: uninstall after an edit rewrites with CRLF', () => {
    const { path, env } = crlfHome(join('.claude', 'settings.json'), ['{', '  "model": "A"', '}']);
    installHooks({ agent: 'claude-code', ...installBasics(env) });
    const edited = JSON.parse(readFileSync(path, 'utf8'));
    edited.model = 'B';
    writeFileSync(path, JSON.stringify(edited, null, 2).replaceAll('\n', '\r\n'));
    expect(uninstallHooks({ agent: 'claude-code', scope: { kind: 'user' }, env })).toMatchObject({
      outcome: 'rewritten',
    });
    const after = readFileSync(path, 'utf8');
    expect(JSON.parse(after)).toEqual({ model: 'B' });
    expect(onlyCrlf(after)).toBe(true);
  });
});
