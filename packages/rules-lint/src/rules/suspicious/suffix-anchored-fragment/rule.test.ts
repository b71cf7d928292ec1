import { fileURLToPath } from 'node:url';
import { matchGlob } from '@airlock/core';
import { describe, expect, it } from 'vitest';
import { lintFixture } from '../../testing.js';
import { suffixAnchoredFragment } from './rule.js';

const folder = fileURLToPath(new URL('.', import.meta.url));

describe('suffix-anchored-fragment', () => {
  it('reports leading-star fragments of command words that must end the text, offering a trailing star', () => {
    const findings = lintFixture(suffixAnchoredFragment, folder, 'bad.json');
    expect(findings.map((finding) => finding.pointer)).toEqual(['/0/match', '/1/match']);
    expect(findings[0]?.fix?.operations).toEqual([
      { op: 'set', pointer: '/0/match', value: '*rm -rf*' },
    ]);
    // What the finding says is what the kernel does.
    expect(matchGlob('*rm -rf', 'rm -rf /tmp/x')).toBe(false);
    expect(matchGlob('*rm -rf*', 'rm -rf /tmp/x')).toBe(true);
  });

  it('is silent on suffixes such as *.env and single flags, and on fragments with both stars', () => {
    expect(lintFixture(suffixAnchoredFragment, folder, 'good.json')).toEqual([]);
  });
});
