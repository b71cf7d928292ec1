import { evaluatePermissions, type PermissionRule } from '@airlock/core';
import { describe, expect, it } from 'vitest';
import { askPem, decideTool, denySecrets } from './fixtures/decide-tool.js';
import { TOOL_MANIFESTS } from './tool-manifests.js';

const guards: PermissionRule[] = [
  { verdict: 'deny', targets: ['**/.env'] },
  { verdict: 'deny', targets: ['**/*.pem'] },
];

describe('a read tool that reads one file is not read as a directory', () => {
  it.each(
    guards.flatMap((rule) =>
      ['/repo/Makefile', '/repo/LICENSE', '/repo/Dockerfile', 'src/bin'].flatMap((path) => [
        { agent: 'claude-code' as const, tool: 'Read', path, rule },
        { agent: 'gemini' as const, tool: 'read_file', path, rule },
      ]),
    ),
  )('grants $tool of $path under $rule.targets', ({ agent, tool, path, rule }) => {
    expect(decideTool(agent, tool, { file_path: path }, rule)).toBe('allow');
  });

  it('still refuses the guarded file itself', () => {
    expect(decideTool('claude-code', 'Read', { file_path: '/repo/.env' }, guards[0]!)).toBe('deny');
    expect(decideTool('gemini', 'read_file', { file_path: '/repo/a/k.pem' }, guards[1]!)).toBe(
      'deny',
    );
  });
});

// Listings print names only: listing-tools.test.ts.
describe('a search reads its directory through', () => {
  it.each([
    ['claude-code', 'Grep', { pattern: 'x', path: '/repo/src' }],
    ['claude-code', 'Grep', { pattern: 'x', path: '/repo/config' }],
    ['claude-code', 'Grep', { pattern: 'x', path: '/repo/conf.d' }],
    ['gemini', 'search_file_content', { pattern: 'x', dir_path: 'src' }],
  ] as const)('asks %s %s %j under **/.env', (agent, tool, input) => {
    expect(decideTool(agent, tool, input, guards[0]!)).toBe('ask');
  });

  it('grants a listing by name without a path: it returns names its own pattern matches, never contents', () => {
    expect(decideTool('claude-code', 'Glob', { pattern: '**/*.ts' }, guards[0]!)).toBe('allow');
    expect(decideTool('gemini', 'glob', { pattern: '**/*.ts' }, guards[0]!)).toBe('allow');
  });

  it('grants a search of one file', () => {
    expect(decideTool('claude-code', 'Grep', { pattern: 'x', path: 'src/a.ts' }, guards[0]!)).toBe(
      'allow',
    );
  });
});

describe('a search given no path searches the working directory', () => {
  it('asks Grep without a path under **/.env, as Bash rg x does', () => {
    expect(decideTool('claude-code', 'Grep', { pattern: 'x' }, guards[0]!)).toBe('ask');
    expect(decideTool('claude-code', 'Bash', { command: 'rg x' }, guards[0]!)).toBe('ask');
    expect(decideTool('gemini', 'search_file_content', { pattern: 'x' }, guards[0]!)).toBe('ask');
  });
});

describe("Gemini's read_many_files reads every match of its globs", () => {
  it.each([
    [{ paths: ['.env'] }, 'deny'],
    [{ paths: ['src/a.ts', 'config/.env'] }, 'deny'],
    [{ paths: ['.e*'] }, 'ask'],
    [{ paths: ['src'] }, 'ask'],
    [{ paths: ['**/*'] }, 'ask'],
    [{ paths: ['.{env,x}'] }, 'ask'],
    [{ paths: ['src/*.ts'], include: ['**/.env'] }, 'ask'],
  ] as const)('refuses or asks %j under **/.env', (input, verdict) => {
    expect(decideTool('gemini', 'read_many_files', input, guards[0]!)).toBe(verdict);
  });

  it.each([
    [{ include: ['docs/*.md'] }, 'allow'],
    [{ include: ['**/*.ts', 'src/**/*.tsx'] }, 'allow'],
    [{ paths: ['config/*.yaml'] }, 'allow'],
    [{ include: ['**/*.env'] }, 'ask'],
    [{ include: ['**/.e?v'] }, 'ask'],
    [{ include: ['src/**'] }, 'ask'],
    [{ include: ['docs/*.{md,env}'] }, 'ask'],
  ] as const)(
    'reads only files (nodir): %j is answered %s under **/.env by the names its glob gives',
    (input, verdict) => {
      expect(decideTool('gemini', 'read_many_files', input, guards[0]!)).toBe(verdict);
    },
  );

  // Gemini CLI 0.61 globs a path without a wildcard too (nodir): a file is read, a directory
  // (`src`, `docs/`) matches nothing; a name with a file's extension is read as that file.
  it.each([
    [{ include: ['README.md'] }, 'allow'],
    [{ include: ['src/**/*.ts', 'README.md', 'package.json'] }, 'allow'],
    [{ paths: ['/repo/docs/guide.md'] }, 'allow'],
    [{ include: ['Makefile'] }, 'allow'],
    [{ include: ['conf.d'] }, 'ask'],
    [{ include: ['docs/'] }, 'ask'],
    [{ include: ['.env'] }, 'deny'],
  ] as const)(
    'reads a path without a wildcard by its name: %j is answered %s under **/.env',
    (input, verdict) => {
      expect(decideTool('gemini', 'read_many_files', input, guards[0]!)).toBe(verdict);
      if (verdict === 'allow')
        expect(decideTool('gemini', 'read_many_files', input, askPem)).toBe(verdict);
    },
  );

  it('asks a glob that may reach a guarded directory, grants one that may not', () => {
    const rule: PermissionRule = { verdict: 'deny', targets: ['secrets/**'] };
    expect(decideTool('gemini', 'read_many_files', { paths: ['s*/key'] }, rule)).toBe('ask');
    expect(decideTool('gemini', 'read_many_files', { paths: ['{src,secrets}/key'] }, rule)).toBe(
      'ask',
    );
    expect(decideTool('gemini', 'read_many_files', { paths: ['src/**/*.ts'] }, rule)).toBe('allow');
    expect(decideTool('gemini', 'read_many_files', { paths: ['docs'] }, rule)).toBe('allow');
  });
});

describe("Claude Code's LS lists a directory as Glob given a path does", () => {
  it('grants LS of a directory no rule guards (it asked as an undeclared tool)', () => {
    expect(decideTool('claude-code', 'LS', { path: '/repo/src' }, denySecrets)).toBe('allow');
    expect(
      decideTool('claude-code', 'LS', { path: '/repo' }, { verdict: 'deny', tools: ['X'] }),
    ).toBe('allow');
  });

  it.each([
    [{ path: '/repo/secrets' }, denySecrets],
    [{ path: '/repo' }, denySecrets],
    [{ path: '/repo/config' }, guards[0]!],
  ] as const)('answers LS %j as Glob given the same path', (input, rule) => {
    const glob = decideTool('claude-code', 'Glob', { pattern: '*', ...input }, rule);
    expect(decideTool('claude-code', 'LS', input, rule)).toBe(glob);
  });
});

describe("Claude Code's Bash in /repo under a deny of **/.env", () => {
  const bash = (command: string) =>
    evaluatePermissions({
      toolName: 'Bash',
      input: { command },
      manifest: TOOL_MANIFESTS['claude-code'],
      projectRoot: '/repo',
      workingDirectory: '/repo',
      ruleSetId: 'autonomous',
      customRuleSets: undefined,
      approvalMode: 'bypass',
      overlays: { conversation: [{ ruleSetId: 'autonomous', rules: [guards[0]!] }] },
    }).verdict;

  it.each([
    ...['tsc -p .', 'prettier --check .', 'eslint .', 'pytest .', 'code .', 'tree', 'du -sh .'],
    ...['mkdir -p build && cd build && cmake ..', 'find . -name "*.ts"', 'find src -name "*.ts"'],
    'find . -name .env',
  ])('runs %j unasked: it lists names or builds, printing no file', (command) => {
    expect(bash(command)).toBe('allow');
  });

  it.each([
    ...['cat .env', 'grep -rn foo src', 'cp -r src /tmp/x', 'zip -r out.zip src', 'git diff'],
    ...['tar czf a.tgz .', 'docker build .', 'git add .', 'rg --hidden x'],
    ...['find . -exec cat {} +', 'find . -name .env | xargs cat'],
  ])('asks for %j: it prints, copies or sends file content', (command) => {
    expect(bash(command)).toBe('ask');
  });
});
