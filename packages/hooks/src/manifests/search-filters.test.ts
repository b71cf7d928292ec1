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

describe("a search limited to one of ripgrep's file types reads only the files that type names", () => {
  it.each([
    { type: 'js' },
    { type: 'ts', path: '/repo' },
    { type: 'py', path: 'src' },
    { type: 'rust' },
    { type: 'go' },
    { type: 'md' },
    { type: 'json' },
    { type: 'yaml' },
    { type: 'make' },
    // A glob given beside the type decides alone (ripgrep's --glob whitelist overrides --type).
    { type: 'js', glob: '*.ts' },
  ])('grants Grep %j under **/.env and **/*.pem', (filter) => {
    const input = { pattern: 'x', ...filter };
    expect(decideTool('claude-code', 'Grep', input, denyEnv)).toBe('allow');
    expect(decideTool('claude-code', 'Grep', input, askPem)).toBe('allow');
  });

  it.each([
    // Unknown to ripgrep (it refuses to search), or a list it does not split: limits nothing.
    { type: 'nope' },
    { type: 'js,ts' },
    { type: 'all' },
    { type: '' },
    { type: '*.ts' },
    // A glob beside the type decides alone: one that limits nothing still asks.
    { type: 'js', glob: '!*.md' },
    { type: 'js', glob: '*.env' },
    { type: 'js', glob: '*' },
    { type: 'toString' },
    { type: '__proto__' },
  ])('asks Grep %j under **/.env: its type may name .env, or limits nothing', (filter) => {
    expect(decideTool('claude-code', 'Grep', { pattern: 'x', ...filter }, denyEnv)).toBe('ask');
  });

  it('asks Grep {type: js} under secrets/**, whose files may be named anything', () => {
    expect(decideTool('claude-code', 'Grep', { pattern: 'x', type: 'js' }, denySecrets)).toBe(
      'ask',
    );
  });

  it('asks Grep {type: config} under **/*.ini, a name the type reads', () => {
    const askIni = { verdict: 'ask' as const, targets: ['**/*.ini'] };
    expect(decideTool('claude-code', 'Grep', { pattern: 'x', type: 'config' }, askIni)).toBe('ask');
    expect(decideTool('claude-code', 'Grep', { pattern: 'x', type: 'sh' }, denyEnv)).toBe('allow');
    const askProfile = { verdict: 'ask' as const, targets: ['**/.profile'] };
    expect(decideTool('claude-code', 'Grep', { pattern: 'x', type: 'sh' }, askProfile)).toBe('ask');
  });

  it('still refuses a search of a guarded file named outright, whatever its type', () => {
    const input = { pattern: 'x', path: '/repo/.env', type: 'js' };
    expect(decideTool('claude-code', 'Grep', input, denyEnv)).toBe('deny');
  });
});
