import { describe, expect, it } from 'vitest';
import type { PermissionRule } from '../schemas/permissions.js';
import { evaluatePermissions } from './evaluate-permissions.js';
import { FIXTURE_MANIFEST } from './fixtures/manifest.js';
import { canonicalPath } from './targets.js';

/** What the autonomous set (which allows everything) decides under one conversation rule. */
function decided(rule: PermissionRule, toolName: string, path: string) {
  return evaluatePermissions({
    toolName,
    input: { path },
    manifest: FIXTURE_MANIFEST,
    projectRoot: '/repo',
    ruleSetId: 'autonomous',
    customRuleSets: undefined,
    approvalMode: 'bypass',
    overlays: { conversation: [{ ruleSetId: 'autonomous', rules: [rule] }] },
  }).verdict;
}

describe('a path that names the same file once case and normalisation are set aside', () => {
  const deny: PermissionRule = { verdict: 'deny', targets: ['secrets/**', 'notes/café.md'] };

  it('is named by a deny, as macOS and Windows file systems name it', () => {
    for (const path of [
      'SECRETS/key',
      'Secrets',
      'notes/CAFÉ.md',
      'notes/cafe\u0301.md',
      '/REPO/secrets/key',
      '/Repo/Notes/Cafe\u0301.md',
    ]) {
      expect(decided(deny, 't_read', path), path).toBe('deny');
    }
    expect(decided(deny, 't_read', 'secretsx/key')).toBe('allow');
    expect(decided(deny, 't_read', 'notes/cafe.md')).toBe('allow');
  });

  it('is named by an ask too, and a removal above it folds the same way', () => {
    const ask: PermissionRule = { verdict: 'ask', targets: ['config/secrets/**'] };
    expect(decided(ask, 't_write', 'CONFIG/Secrets/a')).toBe('ask');
    expect(decided(ask, 't_delete', 'Config')).toBe('ask');
    expect(decided(ask, 't_delete', '/REPO')).toBe('ask');
  });

  it('is not covered by an allow, which grants only what it names as written', () => {
    const allow: PermissionRule = { verdict: 'allow', targets: ['src/**'] };
    const supervised = (path: string) =>
      evaluatePermissions({
        toolName: 't_write',
        input: { path },
        manifest: FIXTURE_MANIFEST,
        projectRoot: '/repo',
        ruleSetId: 'supervised',
        customRuleSets: undefined,
        approvalMode: 'bypass',
        overlays: { conversation: [{ ruleSetId: 'supervised', rules: [allow] }] },
      }).verdict;
    expect(supervised('src/a.ts')).toBe('allow');
    expect(supervised('SRC/a.ts')).toBe('ask');
  });

  it('keeps the canonical text as written, and its rooted form once folded beside it', () => {
    expect(canonicalPath('/REPO/secrets/key', '/repo')).toMatchObject({
      text: '/REPO/secrets/key',
      rooted: false,
      rootedWhenFolded: 'secrets/key',
    });
    expect(canonicalPath('/etc/passwd', '/repo').rootedWhenFolded).toBeUndefined();
  });
});

describe('paths sent in a shape the manifest did not point at', () => {
  const guardrails = [
    {
      owner: 'member:admin',
      document: [
        {
          ruleSetId: 'autonomous',
          rules: [{ verdict: 'deny' as const, guardrail: true, targets: ['secrets/**'] }],
        },
      ],
    },
  ];
  const decide = (toolName: string, input: unknown) =>
    evaluatePermissions({
      toolName,
      input,
      manifest: FIXTURE_MANIFEST,
      projectRoot: '/repo',
      ruleSetId: 'autonomous',
      customRuleSets: undefined,
      approvalMode: 'bypass',
      overlays: { guardrails },
    });

  it('are read all the same, by a guardrail and by Baseline', () => {
    expect(decide('t_write', { path: ['secrets/key'] }).verdict).toBe('deny');
    expect(decide('multi_edit', { edits: { a: { path: 'secrets/key' } } }).verdict).toBe('deny');
    expect(decide('t_write', { path: ['/etc/passwd'] })).toMatchObject({
      verdict: 'ask',
      baselineCheck: 'mutation_outside_project',
    });
    expect(decide('t_write', { path: ['src/a.ts'] }).verdict).toBe('allow');
  });

  it('read an empty path as the project root it resolves to', () => {
    expect(decide('t_delete', { path: '' }).verdict).toBe('deny');
    expect(decide('t_delete', { path: [''] }).verdict).toBe('deny');
    // Writing or reading the root itself touches nothing the guardrail names.
    expect(decide('t_write', { path: '' }).verdict).toBe('allow');
    expect(decide('fetch', { url: '' }).targets).toEqual([]);
  });
});

describe('a URL sent without its scheme', () => {
  const rule = (verdict: 'deny' | 'allow'): PermissionRule => ({
    verdict,
    urls: ['https://internal.example.com/*'],
  });
  const fetched = (verdict: 'deny' | 'allow', url: string, ruleSetId = 'autonomous') =>
    evaluatePermissions({
      toolName: 'fetch',
      input: { url },
      manifest: FIXTURE_MANIFEST,
      projectRoot: '/repo',
      ruleSetId,
      customRuleSets: undefined,
      approvalMode: 'bypass',
      overlays: { conversation: [{ ruleSetId, rules: [rule(verdict)] }] },
    }).verdict;

  it('is read by a deny as the https or http URL a tool would fetch', () => {
    for (const url of [
      'internal.example.com/x',
      '//internal.example.com/x',
      'INTERNAL.example.com:443/x',
    ]) {
      expect(fetched('deny', url), url).toBe('deny');
    }
    expect(fetched('deny', 'example.com/x')).toBe('allow');
  });

  it('is not granted by an allow over the URL with its scheme', () => {
    expect(fetched('allow', 'https://internal.example.com/x', 'read_only')).toBe('allow');
    expect(fetched('allow', 'internal.example.com/x', 'read_only')).not.toBe('allow');
  });
});
