import { describe, expect, it } from 'vitest';
import type { OverlayDocument, PermissionRule } from '../schemas/permissions.js';
import { evaluatePermissions } from './evaluate-permissions.js';
import { FIXTURE_MANIFEST } from './fixtures/manifest.js';

/**
 * A read tool given a directory (a search, a listing) may read every file under it: one
 * given a directory holding what a deny or an ask guards is not granted unasked.
 */
function decide(toolName: string, path: string, rules: PermissionRule[], scope = 'conversation') {
  const document: OverlayDocument = [{ ruleSetId: 'autonomous', rules }];
  return evaluatePermissions({
    toolName,
    input: { path },
    manifest: FIXTURE_MANIFEST,
    projectRoot: '/repo',
    ruleSetId: 'autonomous',
    customRuleSets: undefined,
    approvalMode: 'bypass',
    overlays:
      scope === 'guardrail'
        ? { guardrails: [{ owner: 'member:admin', document }] }
        : { [scope]: document },
  });
}

const denySecrets: PermissionRule = { verdict: 'deny', targets: ['config/secrets/**'] };

describe('a read of a directory holding guarded paths', () => {
  it.each(['.', '', 'config', 'config/', './config/..', '/repo'])(
    'asks for a read of %j under a deny of config/secrets/**',
    (path) => {
      const outcome = decide('t_read', path, [denySecrets]);
      expect(outcome).toMatchObject({ verdict: 'ask', scope: 'conversation', index: 0 });
      expect(outcome.detail).toContain('config/secrets/**');
    },
  );

  it('asks under a guardrail and under an ask rule too', () => {
    expect(decide('t_read', '.', [{ ...denySecrets, guardrail: true }], 'guardrail').verdict).toBe(
      'ask',
    );
    expect(decide('t_read', '.', [{ verdict: 'ask', targets: ['**/*.key'] }]).verdict).toBe('ask');
  });

  it('still refuses what the pattern names, and grants what lies beside it', () => {
    expect(decide('t_read', 'config/secrets', [denySecrets]).verdict).toBe('deny');
    expect(decide('t_read', 'config/secrets/a.key', [denySecrets]).verdict).toBe('deny');
    for (const path of ['src', 'config/other', 'config/app.json', 'conf', 'configx']) {
      expect(decide('t_read', path, [denySecrets]).verdict, path).toBe('allow');
    }
  });

  it('an allow is never widened, and a tool without the read trait is not asked', () => {
    const allow: PermissionRule = { verdict: 'allow', targets: ['config/secrets/**'] };
    expect(decide('t_read', '.', [allow, { verdict: 'deny' }]).verdict).toBe('deny');
    expect(decide('t_write', '.', [denySecrets]).verdict).toBe('allow');
    expect(decide('t_delete', '.', [denySecrets]).verdict).toBe('deny');
  });
});
