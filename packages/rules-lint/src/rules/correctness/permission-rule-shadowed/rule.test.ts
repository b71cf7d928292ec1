import { fileURLToPath } from 'node:url';
import { evaluatePermissions, type PermissionRule } from '@airlock/core';
import { describe, expect, it } from 'vitest';
import { fileLinter } from '../../../check-file.js';
import { DEFAULT_CONFIG } from '../../../config/lint-config.js';
import { parseDocument } from '../../../source/document.js';
import { lintFixture } from '../../testing.js';
import { permissionRuleShadowed } from './rule.js';

const folder = fileURLToPath(new URL('.', import.meta.url));

describe('permission-rule-shadowed', () => {
  it('reports a rule an earlier rule of its list takes every call from', () => {
    const findings = lintFixture(permissionRuleShadowed, folder, 'bad.json');
    expect(findings.map((finding) => [finding.pointer, finding.severity])).toEqual([
      ['/custom_rule_sets/0/rules/1', 'warning'],
      ['/custom_rule_sets/0/rules/3', 'warning'],
      ['/custom_rule_sets/0/rules/5', 'info'],
    ]);
    expect(findings[0]?.message).toContain(
      'deny rule 1 never decides a call: the earlier allow rule 0',
    );
    expect(findings[2]?.message).toContain('allow rule 5 repeats rule 0');
    expect(findings[0]?.location.line).toBe(8);
  });

  it('says what core does: the first matching rule decides, so the deny never refuses', () => {
    const rules: PermissionRule[] = [
      { verdict: 'allow', tools: ['Bash'] },
      { verdict: 'deny', tools: ['Bash'], argument_patterns: { '/command': 'rm *' } },
    ];
    const outcome = evaluatePermissions({
      toolName: 'Bash',
      input: { command: 'rm -rf build' },
      manifest: [{ name: 'Bash', input_schema: { type: 'object' }, risk_traits: ['execute'] }],
      projectRoot: '/repo',
      ruleSetId: 'autonomous',
      customRuleSets: undefined,
      approvalMode: 'bypass',
      overlays: { conversation: [{ ruleSetId: 'autonomous', rules }] },
    });
    expect(outcome.verdict).toBe('allow');
  });

  it('runs in an overlay, and leaves guardrails out (they bind whatever their order)', () => {
    const overlay = [
      {
        ruleSetId: 'team',
        rules: [
          { verdict: 'deny', tools: ['Bash'], guardrail: true, reason: 'no shell' },
          { verdict: 'allow', tools: ['*'] },
          { verdict: 'ask', tools: ['Read'] },
          { verdict: 'deny', tools: ['Bash'], guardrail: true, reason: 'still no shell' },
        ],
      },
    ];
    const parsed = parseDocument('user-overlay.json', JSON.stringify(overlay, null, 2));
    if (!parsed.ok) throw new Error(parsed.message);
    const config = { ...DEFAULT_CONFIG, tools: undefined };
    const findings = fileLinter(parsed.document, { config })(parsed.document).filter(
      (finding) => finding.code === permissionRuleShadowed.id,
    );
    expect(findings.map((finding) => finding.pointer)).toEqual(['/0/rules/2']);
  });

  it("reads an overlay's groups for one rule set in order as one list, as core does", () => {
    const overlay = [
      { ruleSetId: 'team', rules: [{ verdict: 'allow', tools: ['Bash'] }] },
      { ruleSetId: 'other', rules: [{ verdict: 'deny', tools: ['Bash'] }] },
      { ruleSetId: 'team', rules: [{ verdict: 'deny', tools: ['Bash'], reason: 'no shell' }] },
    ];
    const parsed = parseDocument('.airlock/permissions.json', JSON.stringify(overlay, null, 2));
    if (!parsed.ok) throw new Error(parsed.message);
    const config = { ...DEFAULT_CONFIG, tools: undefined };
    const findings = fileLinter(parsed.document, { config })(parsed.document).filter(
      (finding) => finding.code === permissionRuleShadowed.id,
    );
    expect(findings.map((finding) => finding.pointer)).toEqual(['/2/rules/0']);
    expect(findings[0]?.message).toContain(
      'rule 0 (at /0/rules/0, an earlier group for the same rule set)',
    );
    const outcome = evaluatePermissions({
      toolName: 'Bash',
      input: { command: 'ls' },
      manifest: [{ name: 'Bash', input_schema: { type: 'object' }, risk_traits: ['execute'] }],
      projectRoot: '/repo',
      ruleSetId: 'team',
      customRuleSets: [{ id: 'team', rules: [] }],
      approvalMode: 'bypass',
      overlays: { project: overlay as never },
    });
    expect(outcome.verdict).toBe('allow');
  });

  it('is silent when the narrower rule comes first, or a path condition differs', () => {
    expect(lintFixture(permissionRuleShadowed, folder, 'good.json')).toEqual([]);
  });
});
