import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileGlob, matchGlob } from './byte-glob.js';
import { referenceGlobMatch as referenceMatch } from './fixtures/reference-glob.js';
import { segmentSearchIsBounded } from './glob-segment.js';
import { PreparedText } from './prepared-text.js';
import { utf8Bytes } from './utf8.js';

/** Runs of one symbol, so segments grow past the native-search and one-word Shift-And limits. */
const runArb = fc
  .tuple(fc.constantFrom('a', 'b', '?', 'é', '\uD800'), fc.integer({ min: 1, max: 90 }))
  .map(([symbol, count]) => symbol.repeat(count));

/**
 * Matching agrees with the reference for every glob that compiles; a glob
 * that does not is refused as too complex, and only for a `?` segment past
 * the search bounds.
 */
function expectAgrees(pattern: string, text: string): void {
  const glob = compileGlob(pattern);
  if (!glob.ok) {
    expect(glob.problems[0]?.code).toBe('glob_too_complex');
    const unbounded = pattern.split('*').some((part) => !segmentSearchIsBounded(utf8Bytes(part)));
    expect(unbounded).toBe(true);
    return;
  }
  expect(glob.value.matches(text)).toBe(referenceMatch(pattern, text));
}

describe('segments longer than one machine word or the native search limit', () => {
  const patternArb = fc
    .array(fc.oneof(runArb, fc.constant('*')), { minLength: 1, maxLength: 6 })
    .map((parts) => parts.join('').replace(/\uD800/g, 'a'));
  const textArb = fc.array(runArb, { maxLength: 8 }).map((parts) => parts.join(''));

  it('agree with the reference on long runs, `?` and lone surrogates included', () => {
    fc.assert(
      fc.property(patternArb, textArb, (pattern, text) => {
        expectAgrees(pattern, text);
        const glob = compileGlob(pattern);
        if (!glob.ok) return;
        const expected = referenceMatch(pattern, text);
        expect(glob.value.matchesPrepared(new PreparedText(text))).toBe(expected);
        expect(glob.value.matchesBytes(utf8Bytes(text))).toBe(expected);
      }),
      { numRuns: 1500 },
    );
  });

  it('agree on texts made from the pattern, so long matches are common', () => {
    fc.assert(
      fc.property(patternArb, fc.constantFrom('', 'b', 'ab', '\uD800'), (pattern, fill) => {
        const text = pattern.replace(/\*/g, fill).replace(/\?/g, 'a');
        expectAgrees(pattern, text);
        expectAgrees(`*${pattern}`, `b${text}`);
      }),
      { numRuns: 1500 },
    );
  });

  it('agree with the reference on segments of many short pieces (the Shift-And path)', () => {
    const manyPieces = fc
      .array(fc.constantFrom('a', 'b', '?', '?', 'é'), { minLength: 8, maxLength: 120 })
      .map((units) => units.join(''));
    fc.assert(
      fc.property(
        manyPieces,
        fc.array(fc.constantFrom('a', 'b', 'é', 'ab'), { maxLength: 80 }),
        (segment, units) => {
          const text = units.join('');
          for (const pattern of [
            `*${segment}*`,
            `*${segment}`,
            `${segment}*b`,
            `a*${segment}*b*`,
          ]) {
            expectAgrees(pattern, text);
            expectAgrees(pattern, pattern.replace(/\*/g, 'ab').replace(/\?/g, 'b'));
          }
        },
      ),
      { numRuns: 800 },
    );
  });

  it('finds a 300-unit middle literal that native search would scan slowly', () => {
    const middle = `${'a'.repeat(150)}b${'a'.repeat(149)}`;
    const text = `${'a'.repeat(5000)}${middle}x`;
    expect(matchGlob(`*${middle}*`, text)).toBe(true);
    expect(matchGlob(`*${middle}x`, text)).toBe(true);
    expect(matchGlob(`*${middle}y*`, text)).toBe(false);
  });

  it('refuses a `?` segment past both search bounds, and only such a segment', () => {
    const refused = [`*${'a?'.repeat(129)}b*`, `${'a?'.repeat(200)}*`, `*${'?ab'.repeat(100)}`];
    for (const pattern of refused) {
      const glob = compileGlob(pattern);
      expect(glob.ok).toBe(false);
      if (!glob.ok) expect(glob.problems[0]?.code).toBe('glob_too_complex');
    }
    const accepted = [
      `*${'a?'.repeat(128)}*`,
      `*${'a'.repeat(5000)}?${'b'.repeat(5000)}?c*`,
      `*${'a'.repeat(5000)}*${'a?'.repeat(100)}*`,
      `*${'?'.repeat(4000)}*`,
      `*${'a'.repeat(30_000)}*`,
    ];
    for (const pattern of accepted) expect(compileGlob(pattern).ok).toBe(true);
  });

  it('finds a 100-byte `?` segment across word boundaries', () => {
    const segment = `${'a'.repeat(64)}?${'a'.repeat(34)}b`;
    expect(matchGlob(`*${segment}*`, `${'a'.repeat(400)}b`)).toBe(true);
    expect(matchGlob(`*${segment}*`, `${'a'.repeat(400)}c`)).toBe(false);
  });
});
