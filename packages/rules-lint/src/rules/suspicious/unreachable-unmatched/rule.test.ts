import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { lintFixture } from '../../testing.js';
import { unreachableUnmatched } from './rule.js';

const folder = fileURLToPath(new URL('.', import.meta.url));

describe('unreachable-unmatched', () => {
  it('reports allow and ask rules for model calls under bypass', () => {
    const findings = lintFixture(unreachableUnmatched, folder, 'bad.json');
    expect(findings.map((finding) => finding.pointer)).toEqual([
      '/approval_rules/0/verdict',
      '/approval_rules/1/verdict',
    ]);
  });

  it('reports a catch-all allow that is not last', () => {
    const findings = lintFixture(unreachableUnmatched, folder, 'catch-all.json');
    expect(findings.map((finding) => finding.pointer)).toEqual(['/0']);
    expect(findings[0]?.message).toContain('Move it to the end');
  });

  it('is silent on a catch-all allow that is last', () => {
    expect(lintFixture(unreachableUnmatched, folder, 'good.json')).toEqual([]);
  });
});
