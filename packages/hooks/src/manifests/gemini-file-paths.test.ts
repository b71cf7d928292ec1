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

/*
 * Gemini CLI 0.61's replace reads a relative file_path through correctPath: when no file is at it
 * in the working directory, it looks below each workspace directory (50 directories at most) for
 * the one file whose path ends with it, and edits that (`key` edits secrets/key).
 */
describe("Gemini CLI's replace of a relative path may edit a file found below", () => {
  const denyConfigSecrets = { verdict: 'deny' as const, targets: ['config/secrets/**'] };
  const edit = (file_path: string) => ({ file_path, old_string: 'a', new_string: 'b' });

  it.each([
    [edit('key'), denySecrets],
    [edit('secrets/key'), denyConfigSecrets],
    [edit('./key'), denySecrets],
    [edit('src/../key'), denySecrets],
  ] as const)('asks replace %j under %j: a file below may be the one edited', (input, rule) => {
    expect(decideTool('gemini', 'replace', input, rule)).toBe('ask');
  });

  it('still refuses a guarded path named outright, and grants an absolute path elsewhere', () => {
    expect(decideTool('gemini', 'replace', edit('secrets/key'), denySecrets)).toBe('deny');
    expect(decideTool('gemini', 'replace', edit('/repo/src/a.ts'), denySecrets)).toBe('allow');
    expect(decideTool('gemini', 'replace', edit('src/a.ts'), denyEnv)).toBe('allow');
    expect(decideTool('gemini', 'replace', edit('src/a.ts'), askPem)).toBe('allow');
    expect(decideTool('gemini', 'replace', edit('a.pem'), askPem)).toBe('ask');
  });

  it('asks a relative replace made from a directory below a guarded one', () => {
    expect(decideTool('gemini', 'replace', edit('key'), denySecrets, '/repo/docs')).toBe('allow');
    expect(decideTool('gemini', 'replace', edit('key'), denySecrets, '/')).toBe('ask');
  });
});
