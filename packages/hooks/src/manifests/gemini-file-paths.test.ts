import { describe, expect, it } from 'vitest';
import { askPem, decideTool, denyEnv, denySecrets } from './fixtures/decide-tool.js';

/*
 * Gemini CLI 0.61's read_file, write_file and replace read their file_path through
 * resolveDefensiveToolPath: every NUL character is removed, and a relative path starting `@`
 * (`@secrets/key`, `@/secrets/key`) whose `@` entry does not exist is read without the `@` and
 * the slashes after it. A rule must read the path the tool opens.
 */
describe('a Gemini CLI file path as its file tools clean it', () => {
  it.each([
    ['read_file', { file_path: '.e\u0000nv' }],
    ['read_file', { file_path: '/repo/.env\u0000' }],
    ['read_file', { file_path: '@.env' }],
    ['read_file', { file_path: '@/.env' }],
    ['write_file', { file_path: '@src/.env', content: 'X=1' }],
    ['replace', { file_path: '/repo/.e\u0000nv', old_string: 'a', new_string: 'b' }],
  ] as const)(
    'refuses %s %j under a deny of **/.env (cleaned, the path is .env)',
    (tool, input) => {
      expect(decideTool('gemini', tool, input, denyEnv)).toBe('deny');
    },
  );

  it.each([
    ['read_file', { file_path: '@secrets/key' }],
    ['read_file', { file_path: '@/secrets/key' }],
    ['read_file', { file_path: 'secrets\u0000/key' }],
    ['write_file', { file_path: '@secrets/key', content: 'x' }],
  ] as const)('refuses %s %j under a deny of secrets/**', (tool, input) => {
    expect(decideTool('gemini', tool, input, denySecrets)).toBe('deny');
  });

  it.each([
    ['read_file', { file_path: '@src/a.ts' }],
    ['read_file', { file_path: '/repo/src/a.ts' }],
    ['read_file', { file_path: 'src/a@b.ts' }],
  ] as const)('still grants %s %j, which reaches no guarded path', (tool, input) => {
    for (const rule of [denyEnv, denySecrets, askPem]) {
      expect(decideTool('gemini', tool, input, rule)).toBe('allow');
    }
  });
});
