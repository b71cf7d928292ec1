import { fileURLToPath } from 'node:url';
import { matchGlob } from '@airlock/core';
import { describe, expect, it } from 'vitest';
import { lintFixture } from '../../testing.js';
import { literalPathMatch } from './rule.js';

const folder = fileURLToPath(new URL('.', import.meta.url));

describe('literal-path-match', () => {
  it('reports bare file names on path-like fields, offering a leading star', () => {
    const findings = lintFixture(literalPathMatch, folder, 'bad.json');
    expect(findings.map((finding) => finding.pointer)).toEqual(['/0/match', '/1/match']);
    expect(findings[0]?.fix?.operations).toEqual([
      { op: 'set', pointer: '/0/match', value: '*id_rsa' },
    ]);
    expect(matchGlob('id_rsa', '/home/me/.ssh/id_rsa')).toBe(false);
    expect(matchGlob('*id_rsa', '/home/me/.ssh/id_rsa')).toBe(true);
  });

  it('is silent on absolute paths, globs, fragments another rule reports, and non-path fields', () => {
    expect(lintFixture(literalPathMatch, folder, 'good.json')).toEqual([]);
  });
});
