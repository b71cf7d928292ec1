import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { lintFixture } from '../../testing.js';
import { fragmentWithoutStar, looksLikeFragment } from './rule.js';

const folder = fileURLToPath(new URL('.', import.meta.url));

describe('fragment-without-star', () => {
  it('reports fragments and offers a leading star', () => {
    const findings = lintFixture(fragmentWithoutStar, folder, 'bad.json');
    expect(findings.map((finding) => finding.pointer)).toEqual([
      '/0/match',
      '/1/match',
      '/2/match',
    ]);
    expect(findings[0]?.fix).toEqual({
      title: 'Add a leading "*": "*.env"',
      kind: 'unsafe',
      operations: [{ op: 'set', pointer: '/0/match', value: '*.env' }],
    });
  });

  it('is silent on whole texts and prefixes', () => {
    expect(lintFixture(fragmentWithoutStar, folder, 'good.json')).toEqual([]);
  });

  it.each([
    ['.pem', true],
    [' rm -rf', true],
    ['git push --force', true],
    ['*git push', false],
    ['git push*', false],
    ['ls', false],
    ['', false],
  ])('looksLikeFragment(%j) is %s', (match, expected) => {
    expect(looksLikeFragment(match)).toBe(expected);
  });
});
