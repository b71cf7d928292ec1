import { describe, expect, it } from 'vitest';
import { validateProfileConfiguration } from '../rules/validate-profile.js';
import { validateCustomRuleSet, validateOverlayDocument } from './validate-permissions.js';

describe('overlay document validation', () => {
  it('accepts a well-formed document', () => {
    const document = [
      { ruleSetId: 'supervised', rules: [{ verdict: 'allow', targets: ['src/**'] }] },
    ];
    expect(validateOverlayDocument(document, 'project')).toEqual({ ok: true, value: document });
  });

  it('reports every problem with a pointer', () => {
    const result = validateOverlayDocument(
      [
        {
          ruleSetId: 'supervised',
          rules: [
            { verdict: 'allow', targets: ['/etc/**', 'src/../x'] },
            { verdict: 'deny', guardrail: true },
            { verdict: 'allow', arguments: { command: 'x' } },
          ],
        },
      ],
      'project',
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems.map((p) => [p.code, p.pointer])).toEqual([
      ['permission_rule_invalid', '/0/rules/0/targets/0'],
      ['permission_rule_invalid', '/0/rules/0/targets/1'],
      ['permission_rule_invalid', '/0/rules/1/guardrail'],
      ['permission_rule_invalid', '/0/rules/2/arguments/command'],
    ]);
  });

  it('allows guardrails in user documents, but never an allowing one', () => {
    const deny = [{ ruleSetId: 'x', rules: [{ verdict: 'deny', guardrail: true }] }];
    expect(validateOverlayDocument(deny, 'user').ok).toBe(true);
    const allow = [{ ruleSetId: 'x', rules: [{ verdict: 'allow', guardrail: true }] }];
    const result = validateOverlayDocument(allow, 'user');
    expect(!result.ok && result.problems[0]?.pointer).toBe('/0/rules/0/verdict');
  });

  it('refuses unknown keys and wrong shapes as data', () => {
    const result = validateOverlayDocument({ ruleSetId: 'x' }, 'conversation');
    expect(!result.ok && result.problems[0]?.code).toBe('overlay_document_invalid');
    const extra = validateOverlayDocument([{ ruleSetId: 'x', rules: [], more: 1 }], 'user');
    expect(extra.ok).toBe(false);
  });
});

describe('custom rule sets and the profile configuration', () => {
  it("says a typo'd verdict in the words approval rules use", () => {
    const result = validateCustomRuleSet({ id: 'team', rules: [{ verdict: 'alow' }] }, '/c/0');
    expect(!result.ok && result.problems[0]).toMatchObject({
      pointer: '/c/0/rules/0/verdict',
      message: expect.stringContaining('verdict must be allow, ask or deny, not the text "alow"'),
    });
  });

  it('validates a custom set under its pointer', () => {
    const result = validateCustomRuleSet({ id: 'Bad Id', rules: [] }, '/custom_rule_sets/0');
    expect(!result.ok && result.problems[0]?.pointer).toBe('/custom_rule_sets/0/id');
  });

  it('a profile accepts the permission keys and reports their problems', () => {
    const good = validateProfileConfiguration({
      approval_mode: 'bypass',
      tool_manifest: [{ name: 'edit', input_schema: { type: 'object' }, risk_traits: ['write'] }],
      permission_rule_set: 'read_only',
      custom_rule_sets: [{ id: 'anything' }],
      project_root: '/repo',
    });
    expect(good.ok).toBe(true);
    const bad = validateProfileConfiguration({
      tool_manifest: [
        { name: 'edit', input_schema: {}, risk_traits: ['fly'] },
        {
          name: 'edit',
          input_schema: {},
          risk_traits: [],
          targets: [{ pointer: 'x', kind: 'path' }],
        },
      ],
      project_root: 'relative',
    });
    expect(bad.ok).toBe(false);
    if (bad.ok) return;
    expect(bad.problems.map((p) => p.pointer)).toEqual([
      '/tool_manifest/0/risk_traits/0',
      '/tool_manifest/1/targets/0/pointer',
      '/project_root',
    ]);
    const twice = validateProfileConfiguration({
      tool_manifest: [
        { name: 'edit', input_schema: {}, risk_traits: [] },
        { name: 'edit', input_schema: {}, risk_traits: [] },
      ],
    });
    expect(!twice.ok && twice.problems.map((p) => p.pointer)).toEqual(['/tool_manifest/1/name']);
  });
});
