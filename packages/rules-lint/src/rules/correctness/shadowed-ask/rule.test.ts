import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { lintFixture } from '../../testing.js';
import { shadowedAsk } from './rule.js';

const folder = fileURLToPath(new URL('.', import.meta.url));

describe('shadowed-ask', () => {
  it('reports ask rules that a deny covers alone or a union of denies covers', () => {
    const findings = lintFixture(shadowedAsk, folder, 'bad.json');
    expect(findings.map((finding) => finding.pointer)).toEqual(['/1', '/4']);
    expect(findings[0]?.message).toContain('deny rule 0');
    expect(findings[0]?.severity).toBe('warning');
  });

  it('is silent when some call escapes the denies, or the deny is for another origin', () => {
    expect(lintFixture(shadowedAsk, folder, 'good.json')).toEqual([]);
  });
});
