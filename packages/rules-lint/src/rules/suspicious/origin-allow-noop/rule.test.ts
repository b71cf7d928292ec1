import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { lintFixture } from '../../testing.js';
import { originAllowNoop } from './rule.js';

const folder = fileURLToPath(new URL('.', import.meta.url));

describe('origin-allow-noop', () => {
  it('reports allow rules for author and kernel rows, offering removal', () => {
    const findings = lintFixture(originAllowNoop, folder, 'bad.json');
    expect(findings.map((finding) => finding.pointer)).toEqual(['/0/origin', '/1/origin']);
    expect(findings[1]?.fix?.operations).toEqual([{ op: 'remove', pointer: '/1' }]);
  });

  it('is silent on ask and deny rules for those origins and on model allows', () => {
    expect(lintFixture(originAllowNoop, folder, 'good.json')).toEqual([]);
  });
});
