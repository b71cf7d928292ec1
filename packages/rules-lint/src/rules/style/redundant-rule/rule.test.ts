import { fileURLToPath } from 'node:url';
import { decide, validateProfileConfiguration } from '@airlock/core';
import { describe, expect, it } from 'vitest';
import { lintFixture, lintWith } from '../../testing.js';
import { redundantRule } from './rule.js';

const folder = fileURLToPath(new URL('.', import.meta.url));

describe('redundant-rule', () => {
  it('reports rules implied by another of the same verdict and origin', () => {
    const findings = lintFixture(redundantRule, folder, 'bad.json');
    expect(findings.map((finding) => finding.pointer)).toEqual(['/1', '/3', '/5']);
    expect(findings[0]?.message).toContain('implied by rule 0');
  });

  it('keeps an earlier narrower deny whose reason rides, and different origins or paths', () => {
    expect(lintFixture(redundantRule, folder, 'good.json')).toEqual([]);
  });

  it('reports an earlier narrower deny when the reasons are equal', () => {
    const rules = [
      { tool: 'bash', path: 'command', match: 'rm *', verdict: 'deny', reason: 'same' },
      { tool: 'bash', verdict: 'deny', reason: 'same' },
    ];
    expect(
      lintWith(redundantRule, JSON.stringify(rules)).map((finding) => finding.pointer),
    ).toEqual(['/0']);
  });

  it('with a final catch-all allow, reports once at info on the catch-all instead of on every allow', () => {
    const findings = lintFixture(redundantRule, folder, 'catch-all.json');
    expect(findings.map((finding) => [finding.pointer, finding.severity])).toEqual([
      ['/3', 'warning'],
      ['/4', 'info'],
    ]);
    expect(findings[0]?.message).toContain('implied by rule 2');
    expect(findings[1]?.message).toContain('the 2 allow rules of that origin it implies (1, 2)');
  });

  it('treats a catch-all that is not last as any other rule', () => {
    const rules = [
      { tool: '*', verdict: 'allow' },
      { tool: 'read', verdict: 'allow' },
      { tool: 'bash', verdict: 'deny', reason: 'no' },
    ];
    expect(
      lintWith(redundantRule, JSON.stringify(rules)).map((finding) => [
        finding.pointer,
        finding.severity,
      ]),
    ).toEqual([['/1', 'warning']]);
  });
  it('keeps a deny whose reason a deny naming an alias in between would replace', () => {
    const profile = {
      approval_mode: 'rules',
      tool_names: ['bash', 'shell'],
      tool_aliases: { shell: 'bash' },
      approval_rules: [
        { tool: 'bash', path: 'command', match: 'rm *', verdict: 'deny', reason: 'R' },
        { tool: 'shell', verdict: 'deny', reason: 'S' },
        { tool: 'bash', verdict: 'deny', reason: 'R' },
      ],
    };
    expect(lintWith(redundantRule, JSON.stringify(profile))).toEqual([]);
    // The kernel's evaluator: a call made by the alias reads rule 0's reason, and rule 1's without it.
    const detail = (rules: unknown[]) => {
      const validated = validateProfileConfiguration({ ...profile, approval_rules: rules });
      if (!validated.ok) throw new Error('the profile is valid');
      const call = { toolName: 'shell', toolInput: { command: 'rm x' } };
      return decide(validated.value.policy, { mode: 'rules', origin: 'model', ...call }).error
        ?.detail;
    };
    expect(detail(profile.approval_rules)).toBe('R');
    expect(detail(profile.approval_rules.slice(1))).toBe('S');
  });
});
