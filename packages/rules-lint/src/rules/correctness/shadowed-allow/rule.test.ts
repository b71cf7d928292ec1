import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { lintFixture, lintWith } from '../../testing.js';
import { shadowedAllow } from './rule.js';

const folder = fileURLToPath(new URL('.', import.meta.url));

describe('shadowed-allow', () => {
  it('reports allows covered by one rule and by a union of deny and ask rules', () => {
    const findings = lintFixture(shadowedAllow, folder, 'bad.json');
    expect(findings.map((finding) => finding.pointer)).toEqual(['/2', '/6', '/8']);
    expect(findings[1]?.message).toContain('rules 3 (deny), 4 (ask)');
  });

  it('is silent when some call gets through', () => {
    expect(lintFixture(shadowedAllow, folder, 'good.json')).toEqual([]);
  });

  it('needs the union across tool alternatives and texts together', () => {
    const rules = [
      { tool: 'bash|sh', verdict: 'allow', path: 'command', match: 'git *' },
      { tool: 'bash', verdict: 'deny', reason: 'x' },
      { tool: 's?', path: 'command', match: 'git*', verdict: 'ask' },
    ];
    expect(lintWith(shadowedAllow, JSON.stringify(rules))).toHaveLength(1);
    const open = [
      ...rules.slice(0, 2),
      { tool: 's?', path: 'command', match: 'git a*', verdict: 'ask' },
    ];
    expect(lintWith(shadowedAllow, JSON.stringify(open))).toEqual([]);
  });

  it('only counts deny and ask rules addressing the same origin', () => {
    const rules = [
      { tool: 'bash', verdict: 'allow', origin: 'kernel' },
      { tool: 'bash', verdict: 'deny', reason: 'x' },
    ];
    expect(lintWith(shadowedAllow, JSON.stringify(rules))).toEqual([]);
  });

  it('treats a different path as never covering', () => {
    const rules = [
      { tool: 'bash', verdict: 'allow', path: 'command' },
      { tool: 'bash', verdict: 'deny', path: 'cmd', reason: 'x' },
    ];
    expect(lintWith(shadowedAllow, JSON.stringify(rules))).toEqual([]);
  });
});
