import { describe, expect, it } from 'vitest';
import { askPem, decideTool, denyEnv, denySecrets } from './fixtures/decide-tool.js';

/*
 * Claude Code resolves every file tool's path with its expandPath: the text is trimmed
 * (String.prototype.trim: spaces, tabs, newlines, no-break spaces), then `~` and `~/...` are
 * the user's home directory. ` .env` reads `.env`; `~/repo/secrets/key` reads the project's
 * secrets when the project is ~/repo. A rule must read the path the tool opens.
 */
describe('a Claude Code file path as its tools expand it', () => {
  it.each([
    ['Read', { file_path: ' .env' }],
    ['Read', { file_path: '.env\n' }],
    ['Read', { file_path: '/repo/.env\u00a0' }],
    ['Write', { file_path: '\t/repo/src/.env ', content: 'X=1' }],
    ['Edit', { file_path: '/repo/.env ', old_string: 'a', new_string: 'b' }],
  ] as const)('refuses %s %j under a deny of **/.env (the path trimmed is .env)', (tool, input) => {
    expect(decideTool('claude-code', tool, input, denyEnv)).toBe('deny');
  });

  it.each([
    ['Read', { file_path: ' /repo/secrets/key' }],
    ['NotebookEdit', { notebook_path: ' secrets/a.ipynb', new_source: 'x' }],
    ['LS', { path: '/repo/secrets ' }],
    ['Glob', { pattern: '*', path: ' /repo/secrets' }],
    ['Grep', { pattern: 'x', path: ' secrets' }],
  ] as const)('refuses %s %j under a deny of secrets/**', (tool, input) => {
    expect(decideTool('claude-code', tool, input, denySecrets)).toBe('deny');
  });

  it.each([
    ['Read', { file_path: '~/repo/secrets/key' }],
    ['Read', { file_path: ' ~/repo/secrets/key' }],
    ['Write', { file_path: '~/repo/secrets/key', content: 'x' }],
    ['Grep', { pattern: 'x', path: '~' }],
    ['LS', { path: '~/repo/secrets' }],
  ] as const)('asks %s %j under a deny of secrets/**: ~ cannot be placed', (tool, input) => {
    expect(decideTool('claude-code', tool, input, denySecrets)).toBe('ask');
  });

  it.each([
    ['Read', { file_path: ' src/a.ts' }],
    ['Read', { file_path: '/repo/src/a.ts\n' }],
    ['Read', { file_path: 'src/~/a.ts' }],
    ['LS', { path: ' /repo/src' }],
  ] as const)('still grants %s %j, which reaches no guarded path', (tool, input) => {
    for (const rule of [denyEnv, denySecrets, askPem]) {
      expect(decideTool('claude-code', tool, input, rule)).toBe('allow');
    }
  });
});

describe('a path a tool reads as written keeps its reading', () => {
  it("grants Codex's apply_patch adding ~/notes.md (Codex joins it to its working directory)", () => {
    const command = '*** Begin Patch\n*** Add File: ~/notes.md\n+x\n*** End Patch\n';
    for (const rule of [denyEnv, denySecrets, askPem]) {
      expect(decideTool('codex', 'apply_patch', { command }, rule)).toBe('allow');
    }
    const secret = '*** Begin Patch\n*** Add File: ~/secrets/key\n+x\n*** End Patch\n';
    expect(decideTool('codex', 'apply_patch', { command: secret }, denySecrets)).toBe('allow');
  });
});

/*
 * Gemini CLI's read_many_files turns every backslash of a pattern into a slash before it globs
 * (`p.replace(/\\/g, '/')`): `secrets\key` reads secrets/key. Node's glob without that reads a
 * backslash as an escape (`.e\nv` is `.env`); a rule reads both.
 */
describe("Gemini CLI's read_many_files pattern with backslashes", () => {
  it.each([
    [{ include: ['secrets\\key'] }, denySecrets],
    [{ include: ['secrets\\*'] }, denySecrets],
    [{ paths: ['src\\..\\secrets\\key'] }, denySecrets],
    [{ include: ['src\\..\\.env'] }, denyEnv],
    [{ include: ['.e\\nv'] }, denyEnv],
  ] as const)('refuses %j', (input, rule) => {
    expect(decideTool('gemini', 'read_many_files', input, rule)).toBe('deny');
  });

  it('asks of a backslashed glob that may reach a guarded path', () => {
    expect(decideTool('gemini', 'read_many_files', { include: ['s*\\key'] }, denySecrets)).toBe(
      'ask',
    );
  });

  it('grants src\\**\\*.ts, as it grants src/**/*.ts', () => {
    for (const rule of [denyEnv, denySecrets, askPem]) {
      const input = { include: ['src\\**\\*.ts'] };
      expect(decideTool('gemini', 'read_many_files', input, rule)).toBe('allow');
    }
  });
});
