import { describe, expect, it } from 'vitest';
import type { OverlayDocument, PermissionRule } from '../schemas/permissions.js';
import { evaluatePermissions } from './evaluate-permissions.js';
import { FIXTURE_MANIFEST } from './fixtures/manifest.js';
import { compileRootedPattern } from './rooted-pattern.js';

/**
 * A read tool given a directory (a search, a listing) reads what lies under it: one whose
 * directory may hold a path a deny's or an ask's pattern matches is asked, even when the
 * directory holds only some of them (`src` under `**` + `/*.key`).
 */
function decide(path: string, rules: PermissionRule[], toolName = 't_read') {
  const document: OverlayDocument = [{ ruleSetId: 'autonomous', rules }];
  return evaluatePermissions({
    toolName,
    input: { path },
    manifest: FIXTURE_MANIFEST,
    projectRoot: '/repo',
    ruleSetId: 'autonomous',
    customRuleSets: undefined,
    approvalMode: 'bypass',
    overlays: { conversation: document },
  });
}

const deny = (...targets: string[]): PermissionRule => ({ verdict: 'deny', targets });

describe('a read of a directory that may hold some guarded paths', () => {
  it.each([
    ['**/*.key', 'src'],
    ['**/*.key', 'src/lib'],
    ['**/*.key', '/repo/src'],
    ['src/**/*.key', 'src/lib'],
    ['src/*/*.key', 'src'],
    ['*/secret.txt', 'config'],
    ['**/.env', 'packages/app'],
    ['**/*.KEY', 'SRC'],
    ['**/.env', 'conf.d'],
    ['**/.env', 'etc/nginx/sites.d'],
    ['**/*.pem', 'Certs.app'],
  ])('asks under a deny of %j for a read of %j', (pattern, path) => {
    expect(decide(path, [deny(pattern)])).toMatchObject({ verdict: 'ask', index: 0 });
  });

  it('asks under an ask rule too', () => {
    expect(decide('src', [{ verdict: 'ask', targets: ['**/*.pem'] }]).verdict).toBe('ask');
  });

  it.each([
    ['**/*.key', 'src/a.ts'],
    ['**/*.key', 'README.md'],
    ['src/**/*.key', 'docs'],
    ['src/**/*.key', 'lib/src'],
    ['src/*.key', 'src/lib'],
    ['config/secrets/**', 'src'],
    ['*/secret.txt', 'config/app'],
    ['secrets/**', 'secretsx'],
    ['**/.env', 'Makefile'],
    ['**/.env', 'docker/Dockerfile'],
    ['**/*.pem', 'LICENSE'],
  ])('grants under a deny of %j a read of %j, which cannot hold a match', (pattern, path) => {
    expect(decide(path, [deny(pattern)]).verdict).toBe('allow');
  });

  it('still refuses a file the pattern names, and never widens an allow', () => {
    expect(decide('src/a.key', [deny('**/*.key')]).verdict).toBe('deny');
    const allow: PermissionRule = { verdict: 'allow', targets: ['**/*.key'] };
    expect(decide('src', [allow, { verdict: 'deny' }]).verdict).toBe('deny');
    expect(decide('src', [deny('**/*.key')], 't_write').verdict).toBe('allow');
  });
});

describe('compileRootedPattern().matchesUnder', () => {
  it.each([
    ['**/*.key', '.', true],
    ['**', 'a/b', true],
    ['a**b', 'ax', true],
    ['src/**', 'src', true],
    ['src/*.key', 'src', true],
    ['x.key', '.', true],
    ['src/*.key', 'src/lib', false],
    ['*/secret.txt', 'a/b', false],
    ['secrets/**', 'secretsx', false],
    ['secrets/**', '/etc', false],
    ['secrets/**', '../x', false],
  ] as const)('%j under %j is %s', (pattern, directory, expected) => {
    expect(compileRootedPattern(pattern).matchesUnder(directory)).toBe(expected);
  });
});
