import { fileURLToPath } from 'node:url';
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
});
