import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { lintFixture } from '../../testing.js';
import { denyWithoutReason } from './rule.js';

const folder = fileURLToPath(new URL('.', import.meta.url));

describe('deny-without-reason', () => {
  it('reports denies without a reason or with a blank one', () => {
    const findings = lintFixture(denyWithoutReason, folder, 'bad.json');
    expect(findings.map((finding) => finding.pointer)).toEqual(['/0', '/1']);
    expect(findings[0]?.severity).toBe('info');
  });

  it('is silent on denies with a reason', () => {
    expect(lintFixture(denyWithoutReason, folder, 'good.json')).toEqual([]);
  });
});
