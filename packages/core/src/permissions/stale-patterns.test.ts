import { describe, expect, it } from 'vitest';
import { compileGlob } from '../glob/byte-glob.js';
import type { PermissionRule } from '../schemas/permissions.js';
import { evaluatePermissions } from './evaluate-permissions.js';
import { FIXTURE_MANIFEST } from './fixtures/manifest.js';

/**
 * A rule stored before its pattern stopped compiling (an older version, a limit lowered since)
 * reaches evaluation without the validator: a deny or an ask must not fail open.
 */
const LONE_SURROGATE = 't_\uD800*';
const TOO_COMPLEX = `*${'a?'.repeat(4096)}*`;

function decide(
  rule: PermissionRule,
  options: { toolName?: string; input?: unknown; ruleSetId?: string } = {},
) {
  const ruleSetId = options.ruleSetId ?? 'autonomous';
  return evaluatePermissions({
    toolName: options.toolName ?? 't_write',
    input: options.input ?? { path: 'src/a.ts' },
    manifest: FIXTURE_MANIFEST,
    projectRoot: '/repo',
    ruleSetId,
    customRuleSets: undefined,
    approvalMode: 'bypass',
    overlays: { user: [{ ruleSetId, rules: [rule] }] },
  });
}

describe('a stored pattern that no longer compiles', () => {
  it('is one the compiler refuses, and the call is granted without it (the premise)', () => {
    expect(compileGlob(LONE_SURROGATE).ok).toBe(false);
    expect(compileGlob(TOO_COMPLEX).ok).toBe(false);
    expect(decide({ verdict: 'allow', risks: ['write'] }).verdict).toBe('allow');
    expect(decide({ verdict: 'allow', risks: ['read'] }, { toolName: 'fetch' }).verdict).toBe(
      'allow',
    );
  });

  for (const source of [LONE_SURROGATE, TOO_COMPLEX]) {
    const label = source === LONE_SURROGATE ? 'a lone surrogate' : 'a glob over the limit';
    it(`a deny naming tools by ${label} refuses the call`, () => {
      expect(decide({ verdict: 'deny', tools: [source] }).verdict).toBe('deny');
    });

    it(`an ask with an argument pattern of ${label} asks`, () => {
      const rule: PermissionRule = { verdict: 'ask', argument_patterns: { '/path': source } };
      expect(decide(rule).verdict).toBe('ask');
    });

    it(`a deny on urls of ${label} refuses a fetch`, () => {
      const rule: PermissionRule = { verdict: 'deny', urls: [source] };
      const input = { url: 'https://example.com/' };
      expect(decide(rule, { toolName: 'fetch', input }).verdict).toBe('deny');
    });

    it(`an allow of ${label} grants nothing`, () => {
      const rule: PermissionRule = { verdict: 'allow', tools: [source] };
      expect(decide(rule, { ruleSetId: 'read_only' }).verdict).not.toBe('allow');
    });
  }

  for (const source of ['./secrets/**', '/repo/secrets/**', 'secrets//**']) {
    it(`a deny on the target pattern ${source} (no rooted form) refuses, an allow grants nothing`, () => {
      const input = { path: 'secrets/key' };
      expect(decide({ verdict: 'deny', targets: [source] }, { input }).verdict).toBe('deny');
      const allow: PermissionRule = { verdict: 'allow', targets: [source] };
      expect(decide(allow, { input, ruleSetId: 'read_only' }).verdict).not.toBe('allow');
    });
  }
});
