import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileGlob, isLiteralGlob, matchGlob } from './byte-glob.js';
import { referenceGlobMatch as referenceMatch } from './fixtures/reference-glob.js';
import { utf8Bytes } from './utf8.js';

describe('byte glob semantics', () => {
  it.each([
    ['?', 'é', false, '`?` is one byte and é is two'],
    ['??', 'é', true, 'two `?` cover the two bytes of é'],
    ['a?c', 'abc', true, '`?` matches one ASCII byte'],
    ['*', 'line one\nline two', true, '`*` runs across newlines'],
    ['a*b', 'a\n\nb', true, '`*` takes newlines in the middle'],
    ['[ab]', '[ab]', true, '`[` is literal, there are no classes'],
    ['[ab]', 'a', false, '`[ab]` is not a class'],
    ['a\\*', 'a\\xyz', true, '`\\` does not escape: the star stays a star'],
    ['a\\*', 'a*', false, 'no escape, so `\\` must be in the text'],
    ['{a,b}', '{a,b}', true, '`{` is literal, there are no braces'],
    ['{a,b}', 'a', false, 'no brace expansion'],
    ['git push', 'git push --force', false, 'anchored: a fragment needs a star'],
    [
      '*git push*',
      'cd x && git push --force',
      true,
      'leading and trailing stars find the fragment',
    ],
    ['', '', true, 'the empty glob matches only the empty text'],
    ['', 'a', false, 'the empty glob matches only the empty text'],
    ['**', '', true, 'stars may match nothing'],
    ['a*a', 'a', false, 'prefix and suffix may not overlap'],
    ['日本*', '日本語', true, 'multi-byte literals match byte for byte'],
    ['日?', '日本', false, 'one `?` is not a whole three-byte character'],
    ['日???', '日本', true, 'three `?` make one three-byte character'],
    ['*.env', 'config/.env', true, 'suffix glob'],
    ['*.env', 'config/.env.local', false, 'anchored at the end'],
  ])('%j against %j is %s (%s)', (pattern, text, expected) => {
    expect(matchGlob(pattern, text)).toBe(expected);
    expect(referenceMatch(pattern, text)).toBe(expected);
  });

  it('refuses a glob with a lone surrogate, and only that', () => {
    const lone = compileGlob('ab\uD800c');
    expect(lone.ok).toBe(false);
    if (!lone.ok) expect(lone.problems[0]?.code).toBe('glob_invalid');
    expect(compileGlob('\uDC00').ok).toBe(false);
    expect(compileGlob('😀*').ok).toBe(true);
  });

  it('matches a text holding a lone surrogate by its UTF-8 form (U+FFFD)', () => {
    expect(matchGlob('a\uFFFDb', 'a\uD800b')).toBe(true);
    expect(matchGlob('a???b', 'a\uD800b')).toBe(true);
  });

  it('matchesBytes agrees with matches', () => {
    const glob = compileGlob('*a?c*');
    if (!glob.ok) throw new Error('expected the glob to compile');
    expect(glob.value.matchesBytes(utf8Bytes('xxabcyy'))).toBe(true);
    expect(glob.value.matchesBytes(utf8Bytes('xxacyy'))).toBe(false);
  });

  it('knows literal globs', () => {
    expect(isLiteralGlob('bash')).toBe(true);
    expect(isLiteralGlob('memory_*')).toBe(false);
    expect(isLiteralGlob('a?')).toBe(false);
  });

  it('matches the pathological glob in linear time without backtracking', () => {
    const text = 'a'.repeat(1 << 20);
    expect(matchGlob('*a*a*a*a*a*a*a*b', text)).toBe(false);
    expect(matchGlob('*a*a*a*a*a*a*a*a', text)).toBe(true);
  });
});

describe('byte glob agrees with the slow reference', () => {
  const alphabet = ['a', 'b', '*', '?', 'é', '\n', '日'];
  const patternArb = fc
    .array(fc.constantFrom(...alphabet), { maxLength: 8 })
    .map((parts) => parts.join(''));
  const textArb = fc
    .array(fc.constantFrom('a', 'b', 'é', '\n', '日', '*', '?'), { maxLength: 10 })
    .map((parts) => parts.join(''));

  it('on random patterns and texts over a small alphabet', () => {
    fc.assert(
      fc.property(patternArb, textArb, (pattern, text) => {
        expect(matchGlob(pattern, text)).toBe(referenceMatch(pattern, text));
      }),
      { numRuns: 5000 },
    );
  });

  it('on texts made to match, so true cases are common', () => {
    const fill = fc.array(fc.constantFrom('a', 'b', 'é'), { maxLength: 3 }).map((p) => p.join(''));
    fc.assert(
      fc.property(patternArb, fc.array(fill, { minLength: 9, maxLength: 9 }), (pattern, fills) => {
        let index = 0;
        const text = pattern.replace(/[*?]/g, (symbol) => (symbol === '*' ? fills[index++]! : 'b'));
        expect(matchGlob(pattern, text)).toBe(referenceMatch(pattern, text));
      }),
      { numRuns: 3000 },
    );
  });

  it('on arbitrary unicode', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 6 }),
        fc.string({ unit: 'grapheme', maxLength: 8 }),
        (pattern, text) => {
          expect(matchGlob(pattern, text)).toBe(referenceMatch(pattern, text));
        },
      ),
      { numRuns: 2000 },
    );
  });
});

const peerSuite = resolve(
  dirname(fileURLToPath(import.meta.url)),
  '../../../../../shared/peer-suites/krauss-wildcards.json',
);

interface PeerCase {
  pattern: string;
  text: string;
  match: boolean;
  from: string;
}

describe('peer suite: Krauss wildcard cases', () => {
  if (!existsSync(peerSuite)) {
    it.skip(`skipped: ${peerSuite} is absent (the shared/ folder is not beside this checkout)`, () => {});
    console.warn(`krauss-wildcards peer suite skipped: ${peerSuite} not found`);
    return;
  }
  const suite = JSON.parse(readFileSync(peerSuite, 'utf8')) as { cases: PeerCase[] };
  it('holds all 203 published cases', () => {
    expect(suite.cases.length).toBe(203);
  });
  it.each(suite.cases.map((c, i) => [i, c.from, c.pattern, c.text, c.match] as const))(
    'case %i (%s): %j vs %j is %s',
    (_index, _from, pattern, text, expected) => {
      expect(matchGlob(pattern, text)).toBe(expected);
    },
  );
});
