import { fileURLToPath } from 'node:url';
import { evaluatePermissions } from '@airlock/core';
import { describe, expect, it } from 'vitest';
import { lintFixture, lintWith } from '../../testing.js';
import { ruleSetFallback } from './rule.js';

const folder = fileURLToPath(new URL('.', import.meta.url));

const profile = (fields: object) => JSON.stringify({ project_root: '/repo', ...fields }, null, 2);

describe('rule-set-fallback', () => {
  it('reports a permission_rule_set that names no set, suggesting the near one', () => {
    const findings = lintFixture(ruleSetFallback, folder, 'bad.json');
    expect(findings.map((finding) => [finding.pointer, finding.severity])).toEqual([
      ['/permission_rule_set', 'error'],
    ]);
    expect(findings[0]?.message).toContain('falls back to Baseline alone');
    expect(findings[0]?.message).toContain('Did you mean "team"?');
    expect(findings[0]?.location.line).toBe(4);
    const builtIn = lintWith(ruleSetFallback, profile({ permission_rule_set: 'supervized' }));
    expect(builtIn[0]?.message).toContain('Did you mean "supervised"?');
  });

  it('warns of a disabled set and of one not written for the mode the profile runs under', () => {
    const rules = [{ verdict: 'allow', tools: ['Read'] }];
    const disabled = lintWith(
      ruleSetFallback,
      profile({
        permission_rule_set: 'team',
        custom_rule_sets: [{ id: 'team', disabled: true, rules }],
      }),
    );
    expect(disabled.map((finding) => finding.severity)).toEqual(['warning']);
    expect(disabled[0]?.message).toContain('rule set "team" is disabled');
    // No approval_mode: the profile runs under ask.
    const incompatible = lintWith(
      ruleSetFallback,
      profile({
        permission_rule_set: 'team',
        custom_rule_sets: [{ id: 'team', modes: ['rules'], rules }],
      }),
    );
    expect(incompatible[0]?.message).toContain('written for rules, not ask');
    expect(incompatible[0]?.message).toContain('Add ask to its modes');
  });

  it('says what core does: Baseline alone, so a call the set allows asks', () => {
    const outcome = evaluatePermissions({
      toolName: 'Read',
      input: {},
      manifest: [{ name: 'Read', input_schema: { type: 'object' }, risk_traits: ['read'] }],
      projectRoot: '/repo',
      ruleSetId: 'teem',
      customRuleSets: [{ id: 'team', rules: [{ verdict: 'allow', tools: ['Read'] }] }],
      approvalMode: 'ask',
      overlays: {},
    });
    expect(outcome.verdict).toBe('ask');
    expect(outcome.fallback?.reason).toBe('missing');
  });

  it('is silent on a usable set, a built-in one, a malformed one (reported elsewhere) and none', () => {
    expect(lintFixture(ruleSetFallback, folder, 'good.json')).toEqual([]);
    expect(lintWith(ruleSetFallback, profile({ permission_rule_set: 'supervised' }))).toEqual([]);
    const malformed = profile({
      permission_rule_set: 'team',
      custom_rule_sets: [{ id: 'team', rules: 'x' }],
    });
    expect(lintWith(ruleSetFallback, malformed)).toEqual([]);
    expect(lintWith(ruleSetFallback, profile({}))).toEqual([]);
  });
});
