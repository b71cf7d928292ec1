import { evaluatePermissions, type HookedAgent, type PermissionRule } from '@airlock/core';
import { describe, expect, it } from 'vitest';
import { askPem, decideTool, denyEnv, denySecrets } from './fixtures/decide-tool.js';
import { SHELL_TOOL, TOOL_MANIFESTS } from './tool-manifests.js';

const RULES = [denyEnv, denySecrets, askPem];

const shell = (agent: HookedAgent, command: string, rule: PermissionRule, cwd = '/repo') =>
  decideTool(agent, SHELL_TOOL[agent], { command }, rule, cwd);

describe('a listing tool prints names, never content: read as ls and find are', () => {
  it.each([
    ['claude-code', 'LS', { path: '/repo/src' }],
    ['claude-code', 'LS', { path: '/repo' }],
    ['claude-code', 'LS', { path: '.' }],
    ['claude-code', 'LS', { path: '/repo/config' }],
    ['claude-code', 'Glob', { pattern: '**/*.ts', path: '/repo/src' }],
    ['claude-code', 'Glob', { pattern: '*', path: '/repo/config' }],
    ['claude-code', 'Glob', { pattern: '**/.env', path: '/repo' }],
    ['claude-code', 'Glob', { pattern: '**/*' }],
    ['gemini', 'list_directory', { dir_path: '/repo/conf.d' }],
    ['gemini', 'list_directory', { dir_path: '.' }],
    ['gemini', 'glob', { pattern: '*', dir_path: '/repo/config' }],
    ['gemini', 'glob', { pattern: '**/*.ts', dir_path: 'src' }],
    ['gemini', 'glob', { pattern: '**/*.pem' }],
  ] as const)('grants %s %s %j under each rule', (agent, tool, input) => {
    for (const rule of RULES) expect(decideTool(agent, tool, input, rule)).toBe('allow');
  });

  it.each([
    ['claude-code', 'LS', { path: '/repo/secrets' }],
    ['claude-code', 'LS', { path: '/repo/secrets/old' }],
    ['claude-code', 'LS', { path: 'secrets' }],
    ['claude-code', 'LS', { path: '/repo/Secrets' }],
    ['claude-code', 'LS', { path: '/REPO/secrets' }],
    ['claude-code', 'Glob', { pattern: '*', path: '/repo/secrets' }],
    ['gemini', 'list_directory', { dir_path: 'secrets' }],
    ['gemini', 'glob', { pattern: '*', dir_path: '/repo/secrets' }],
  ] as const)(
    'still refuses %s %s %j, which lists a guarded directory itself, as ls secrets asks',
    (agent, tool, input) => {
      expect(decideTool(agent, tool, input, denySecrets)).toBe('deny');
      expect(shell(agent, 'ls secrets', denySecrets)).toBe('ask');
    },
  );

  it.each([
    ['claude-code', 'LS', { path: '/' }],
    ['claude-code', 'LS', { path: '/repo/..' }],
    ['claude-code', 'Glob', { pattern: '*', path: '/' }],
    ['claude-code', 'Glob', { pattern: '**/*.pem', path: '/' }],
    ['gemini', 'list_directory', { dir_path: '/' }],
    ['gemini', 'list_directory', { dir_path: '..' }],
    ['gemini', 'glob', { pattern: '*', dir_path: '/' }],
  ] as const)(
    'grants %s %s %j, a listing above the project root: names only, as ls / runs',
    (agent, tool, input) => {
      for (const rule of RULES) {
        expect(decideTool(agent, tool, input, rule)).toBe('allow');
        expect(shell(agent, 'ls /', rule)).toBe('allow');
      }
    },
  );

  it.each([
    ['claude-code', 'LS', { path: '/repo/secrets' }],
    ['claude-code', 'LS', { path: '/' }],
    ['gemini', 'list_directory', { dir_path: '/repo/secrets' }],
  ] as const)(
    'asks %s %s %j with no project root: the directory may be a guarded one',
    (agent, tool, input) => {
      const verdict = evaluatePermissions({
        toolName: tool,
        input,
        manifest: TOOL_MANIFESTS[agent],
        projectRoot: undefined,
        ruleSetId: 'autonomous',
        customRuleSets: undefined,
        approvalMode: 'bypass',
        overlays: { conversation: [{ ruleSetId: 'autonomous', rules: [denySecrets] }] },
      }).verdict;
      expect(verdict).toBe('ask');
    },
  );

  it('asks a relative listing from a working directory outside the project', () => {
    const input = { dir_path: '.' };
    expect(decideTool('gemini', 'list_directory', input, denySecrets, '/elsewhere')).toBe('ask');
  });

  it.each([
    ['claude-code', 'Glob', { pattern: 'secrets/*' }],
    ['claude-code', 'Glob', { pattern: 'secrets/**/*.key', path: '/repo' }],
    ['claude-code', 'Glob', { pattern: 'secrets/*', path: '.' }],
    ['claude-code', 'Glob', { pattern: '/repo/secrets/*', path: '/repo/src' }],
    ['claude-code', 'Glob', { pattern: '../secrets/*', path: '/repo/src' }],
    ['gemini', 'glob', { pattern: 'secrets/**' }],
    ['gemini', 'glob', { pattern: 'old/*', dir_path: '/repo/secrets' }],
  ] as const)(
    'refuses %s %s %j: its pattern lists a guarded directory, as ls secrets/ asks',
    (agent, tool, input) => {
      expect(decideTool(agent, tool, input, denySecrets)).toBe('deny');
    },
  );

  it.each([
    ['claude-code', 'Glob', { pattern: 'secrets/*', path: '/repo/src' }],
    ['claude-code', 'Glob', { pattern: 'src/**/*.ts' }],
    ['claude-code', 'Glob', { pattern: '{src,docs}/*.md' }],
    ['gemini', 'glob', { pattern: 'lib/*.ts', dir_path: 'src' }],
  ] as const)('grants %s %s %j, whose pattern lists no guarded directory', (agent, tool, input) => {
    expect(decideTool(agent, tool, input, denySecrets)).toBe('allow');
  });

  it('lists the working directory given no directory: refused there inside a guarded one', () => {
    expect(decideTool('claude-code', 'Glob', { pattern: '*' }, denySecrets, '/repo/secrets')).toBe(
      'deny',
    );
    expect(decideTool('gemini', 'glob', { pattern: '*' }, denySecrets, '/repo/secrets')).toBe(
      'deny',
    );
    expect(shell('claude-code', 'find . -name x', denySecrets, '/repo/secrets')).toBe('ask');
    expect(decideTool('claude-code', 'Glob', { pattern: '*' }, denySecrets, '/repo/src')).toBe(
      'allow',
    );
  });

  it.each(['/repo', '/repo/src', '/repo/config', '/repo/secrets', '/repo/.env'])(
    'answers LS of %s as Bash ls -R of it: both run unasked, or neither does',
    (path) => {
      for (const rule of RULES) {
        const listed = decideTool('claude-code', 'LS', { path }, rule) === 'allow';
        expect(listed).toBe(shell('claude-code', `ls -R ${path}`, rule) === 'allow');
      }
    },
  );
});

describe('a search reads content: a match leaks it whatever the output mode', () => {
  it.each([
    ['claude-code', 'Grep', { pattern: 'x', path: '/repo/src' }],
    ['claude-code', 'Grep', { pattern: 'x', path: '/repo', output_mode: 'files_with_matches' }],
    ['claude-code', 'Grep', { pattern: 'x', output_mode: 'count' }],
    ['gemini', 'search_file_content', { pattern: 'x', dir_path: 'config' }],
    ['gemini', 'search_file_content', { pattern: 'x' }],
  ] as const)('asks %s %s %j under **/.env', (agent, tool, input) => {
    expect(decideTool(agent, tool, input, denyEnv)).toBe('ask');
  });
});
