import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileGlob, matchGlob } from './byte-glob.js';
import { referenceGlobMatch as referenceMatch } from './fixtures/reference-glob.js';
import { PreparedText } from './prepared-text.js';
import { utf8Bytes } from './utf8.js';

/** Runs of one symbol, so segments grow past the native-search and one-word Shift-And limits. */
const runArb = fc
  .tuple(fc.constantFrom('a', 'b', '?', 'é', '\uD800'), fc.integer({ min: 1, max: 90 }))
  .map(([symbol, count]) => symbol.repeat(count));

describe('segments longer than one machine word or the native search limit', () => {
  const patternArb = fc
    .array(fc.oneof(runArb, fc.constant('*')), { minLength: 1, maxLength: 6 })
    .map((parts) => parts.join('').replace(/\uD800/g, 'a'));
  const textArb = fc.array(runArb, { maxLength: 8 }).map((parts) => parts.join(''));

  it('agree with the reference on long runs, `?` and lone surrogates included', () => {
    fc.assert(
      fc.property(patternArb, textArb, (pattern, text) => {
        const expected = referenceMatch(pattern, text);
        expect(matchGlob(pattern, text)).toBe(expected);
        const glob = compileGlob(pattern);
        if (!glob.ok) throw new Error('the pattern should compile');
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
        expect(matchGlob(pattern, text)).toBe(referenceMatch(pattern, text));
        const shifted = `b${text}`;
        expect(matchGlob(`*${pattern}`, shifted)).toBe(referenceMatch(`*${pattern}`, shifted));
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
            expect(matchGlob(pattern, text)).toBe(referenceMatch(pattern, text));
            const made = pattern.replace(/\*/g, 'ab').replace(/\?/g, 'b');
            expect(matchGlob(pattern, made)).toBe(referenceMatch(pattern, made));
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

  it('finds a 100-byte `?` segment across word boundaries', () => {
    const segment = `${'a'.repeat(64)}?${'a'.repeat(34)}b`;
    expect(matchGlob(`*${segment}*`, `${'a'.repeat(400)}b`)).toBe(true);
    expect(matchGlob(`*${segment}*`, `${'a'.repeat(400)}c`)).toBe(false);
  });
});
