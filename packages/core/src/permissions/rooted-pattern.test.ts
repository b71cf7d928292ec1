import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileRootedPattern, rootedPatternProblem } from './rooted-pattern.js';

describe('rooted POSIX patterns', () => {
  it.each([
    ['src/**', 'src/a.ts', true],
    ['src/**', 'src/deep/er/a.ts', true],
    ['src/**', 'srcx/a.ts', false],
    ['src/*', 'src/a.ts', true],
    ['src/*', 'src/deep/a.ts', false],
    ['src/*.ts', 'src/a.ts', true],
    ['src/*.ts', 'src/a.js', false],
    ['src/?.ts', 'src/a.ts', true],
    ['src/?.ts', 'src/ab.ts', false],
    ['src?a.ts', 'src/a.ts', false],
    ['**/*.md', 'README.md', true],
    ['**/*.md', 'docs/guide/intro.md', true],
    ['docs/**/intro.md', 'docs/intro.md', true],
    ['docs/**/intro.md', 'docs/a/b/intro.md', true],
    ['**', 'anything/at/all', true],
    ['src/**', '/etc/passwd', false],
    ['**', '/etc/passwd', false],
    ['**', '../outside', false],
    ['a.ts', 'a.ts', true],
    ['a.ts', 'b/a.ts', false],
  ])('%s against %s: %s', (pattern, path, expected) => {
    expect(compileRootedPattern(pattern).matches(path)).toBe(expected);
  });

  it('refuses absolute patterns and non-canonical segments', () => {
    expect(rootedPatternProblem('/etc/**')).toMatch(/absolute/);
    expect(rootedPatternProblem('src/../x')).toMatch(/segment/);
    expect(rootedPatternProblem('./src')).toMatch(/segment/);
    expect(rootedPatternProblem('src//a')).toMatch(/segment/);
    expect(rootedPatternProblem('src/**')).toBeNull();
  });

  it('stays fast on a pathological pattern (bounded dynamic program)', () => {
    const pattern = compileRootedPattern(`${'**a'.repeat(30)}b`);
    expect(pattern.matches('a'.repeat(2000))).toBe(false);
  });
});

/** A reference matcher by RegExp, for the property test only (inputs are tiny). */
function referenceMatches(pattern: string, path: string): boolean {
  let source = '';
  for (let i = 0; i < pattern.length; i += 1) {
    const char = pattern[i]!;
    if (char === '*' && pattern[i + 1] === '*') {
      i += 1;
      if (pattern[i + 1] === '/') {
        i += 1;
        source += '(?:.*/)?';
      } else source += '.*';
    } else if (char === '*') source += '[^/]*';
    else if (char === '?') source += '[^/]';
    else source += char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`, 's').test(path);
}

describe('rooted patterns agree with a reference RegExp', () => {
  it('for every small pattern and rooted path', () => {
    const pattern = fc
      .array(fc.constantFrom('a', 'b', '/', '*', '**', '**/', '?', '.'), { maxLength: 7 })
      .map((parts) => parts.join(''));
    const path = fc
      .array(fc.constantFrom('a', 'b', '/', '.'), { maxLength: 8 })
      .map((parts) => parts.join(''))
      .filter((text) => !text.startsWith('/') && !text.startsWith('..'));
    fc.assert(
      fc.property(pattern, path, (p, t) => {
        expect(compileRootedPattern(p).matches(t)).toBe(referenceMatches(p, t));
      }),
      { numRuns: 3000 },
    );
  });
});

describe('matchesUnder never misses a directory above a match', () => {
  it('for every small pattern and canonical rooted path it matches', () => {
    const pattern = fc
      .array(fc.constantFrom('a', 'b', '/', '*', '**', '**/', '?', '.'), { maxLength: 7 })
      .map((parts) => parts.join(''));
    const path = fc
      .array(fc.constantFrom('a', 'b', '.k'), { minLength: 1, maxLength: 3 })
      .chain((first) =>
        fc
          .array(fc.constantFrom('a', 'b', 'a.k'), { maxLength: 3 })
          .map((rest) => [first.join(''), ...rest]),
      );
    let checked = 0;
    fc.assert(
      fc.property(pattern, path, (p, segments) => {
        const compiled = compileRootedPattern(p);
        if (!compiled.matches(segments.join('/'))) return;
        checked += 1;
        expect(compiled.matchesUnder('.')).toBe(true);
        for (let end = 1; end < segments.length; end++) {
          const directory = segments.slice(0, end).join('/');
          expect(compiled.matchesUnder(directory), `${p} under ${directory}`).toBe(true);
        }
      }),
      { numRuns: 3000 },
    );
    // The draw must reach matching pairs at all for the property to say anything.
    expect(checked).toBeGreaterThan(20);
  });
});
