import { describe, expect, it } from 'vitest';
import { askPem, decideTool, denyEnv, denySecrets } from './fixtures/decide-tool.js';

describe('a search limited to files a glob names reads no file that glob cannot name', () => {
  it.each([
    ['claude-code', 'Grep', { pattern: 'x', glob: '*.ts' }],
    ['claude-code', 'Grep', { pattern: 'x', glob: 'src/**/*.tsx', path: '/repo' }],
    ['claude-code', 'Grep', { pattern: 'x', glob: '*.md', path: '/repo/config' }],
    ['gemini', 'search_file_content', { pattern: 'x', include: '*.ts' }],
    ['gemini', 'search_file_content', { pattern: 'x', include: '**/*.py', dir_path: 'src' }],
    // Claude Code's Grep gives ripgrep each glob of `*.ts *.tsx` and `*.ts,*.tsx`; a brace group
    // is alternatives to ripgrep, and literal text to git grep (names ending `.{ts,tsx}`).
    ['claude-code', 'Grep', { pattern: 'x', glob: '*.{ts,tsx}' }],
    ['claude-code', 'Grep', { pattern: 'x', glob: '*.ts *.tsx' }],
    ['claude-code', 'Grep', { pattern: 'x', glob: '*.ts,*.tsx' }],
    ['claude-code', 'Grep', { pattern: 'x', glob: 'src/**/*.{js,jsx} *.md', path: '/repo' }],
    ['gemini', 'grep_search', { pattern: 'x', include_pattern: '*.{ts,tsx,js}' }],
  ] as const)('grants %s %s %j under **/.env and **/*.pem', (agent, tool, input) => {
    expect(decideTool(agent, tool, input, denyEnv)).toBe('allow');
    expect(decideTool(agent, tool, input, askPem)).toBe('allow');
  });

  it.each([
    ['claude-code', 'Grep', { pattern: 'x', glob: '*.ts' }],
    ['gemini', 'search_file_content', { pattern: 'x', include: '*.ts' }],
  ] as const)(
    'asks %s %s %j under secrets/**, whose files may be named anything',
    (agent, tool, input) => {
      expect(decideTool(agent, tool, input, denySecrets)).toBe('ask');
    },
  );

  it.each([
    { glob: '*.env' },
    { glob: '.env*' },
    { glob: '.e?v' },
    { glob: '*' },
    { glob: '**' },
    { glob: 'src/**' },
    { glob: '*.{ts,env}' },
    { glob: '*.ts *.env' },
    { glob: '*.ts,*.env' },
    { glob: '*.{ts,{env,x}}' },
    { glob: '*.ts {.env,x}' },
    { glob: '*.{ts,tsx} *' },
    { glob: '*.ts,' },
    { glob: '!*.md' },
    { glob: '' },
    // git grep reads Gemini's include as a pathspec: `*` crosses `/`, `s*` is secrets/.env too,
    // a plain name its whole directory, and magic may exclude instead.
    { glob: 's*' },
    { glob: 'src' },
    { glob: 'config' },
    { glob: ':(exclude)*.md' },
    { glob: ':!*.md' },
  ])('asks Grep %j under **/.env: its glob may name .env, or limits nothing', (filter) => {
    expect(decideTool('claude-code', 'Grep', { pattern: 'x', ...filter }, denyEnv)).toBe('ask');
  });

  it.each(['s*', 'src', ':(exclude)*.md', ':(icase)*.ts', 'sec*.t?'])(
    'asks search_file_content {include: %j} under **/.env: git grep may read .env through it',
    (include) => {
      expect(decideTool('gemini', 'search_file_content', { pattern: 'x', include }, denyEnv)).toBe(
        'ask',
      );
    },
  );

  it('asks, never throws, of a filter with 50,000 brace groups', () => {
    const glob = `*.ts${'{a}'.repeat(50_000)}`;
    expect(decideTool('claude-code', 'Grep', { pattern: 'x', glob }, denyEnv)).toBe('ask');
  });

  it('still refuses a search of a guarded file named outright, whatever its glob', () => {
    expect(
      decideTool(
        'claude-code',
        'Grep',
        { pattern: 'x', path: '/repo/.env', glob: '*.ts' },
        denyEnv,
      ),
    ).toBe('deny');
    expect(
      decideTool('claude-code', 'Grep', { pattern: 'x', path: '/', glob: '*.ts' }, denyEnv),
    ).toBe('ask');
  });
});
