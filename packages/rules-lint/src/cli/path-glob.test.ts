import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UsageError } from './cli-io.js';
import { expandInputs } from './inputs.js';
import { compilePathGlob } from './path-glob.js';

/** The regular expression the command line's globs used to be: the reference for what a glob means. */
function referenceRegExp(pattern: string): RegExp {
  const normalized = pattern.replace(/^\.\//, '');
  let source = '';
  for (let index = 0; index < normalized.length; index++) {
    const char = normalized[index]!;
    if (char === '*' && normalized[index + 1] === '*') {
      source += normalized[index + 2] === '/' ? '(?:.*/)?' : '.*';
      index += normalized[index + 2] === '/' ? 2 : 1;
    } else if (char === '*') source += '[^/]*';
    else if (char === '?') source += '[^/]';
    else source += char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

const patternText = fc
  .array(fc.constantFrom('*', '**', '**/', '?', '/', './', 'a', 'b', '.', 'json', '[', '+'), {
    maxLength: 7,
  })
  .map((parts) => parts.join(''));
const pathText = fc
  .array(fc.constantFrom('/', 'a', 'b', '.', 'json', '[', '+', 'ab/'), { maxLength: 9 })
  .map((parts) => parts.join(''));

describe('command-line path globs', () => {
  it('match exactly what the old regular expressions matched, for any glob and path', () => {
    fc.assert(
      fc.property(patternText, pathText, (pattern, path) => {
        expect(compilePathGlob(pattern).matches(path)).toBe(referenceRegExp(pattern).test(path));
      }),
      { numRuns: 5000 },
    );
  });

  it('keep their documented meaning', () => {
    const cases: [string, string, boolean][] = [
      ['policies/*.json', 'policies/a.json', true],
      ['policies/*.json', 'policies/deep/a.json', false],
      ['**/*.json', 'a.json', true],
      ['**/*.json', 'x/y/a.json', true],
      ['./p/?.json', 'p/a.json', true],
      ['p/?.json', 'p//.json', false],
      ['p/**', 'p/x/y.json', true],
    ];
    for (const [pattern, path, expected] of cases)
      expect([pattern, path, compilePathGlob(pattern).matches(path)]).toEqual([
        pattern,
        path,
        expected,
      ]);
  });

  it('say a folder may hold a match whenever some path below it matches', () => {
    fc.assert(
      fc.property(patternText, pathText, pathText, (pattern, folder, rest) => {
        const glob = compilePathGlob(pattern);
        if (rest !== '' && glob.matches(`${folder}/${rest}`))
          expect(glob.mayMatchUnder(folder)).toBe(true);
      }),
      { numRuns: 5000 },
    );
    expect(compilePathGlob('policies/*.json').mayMatchUnder('policies')).toBe(true);
    expect(compilePathGlob('policies/*.json').mayMatchUnder('policies/private')).toBe(false);
    expect(compilePathGlob('**/*.json').mayMatchUnder('a/b')).toBe(true);
    expect(compilePathGlob('a.json').mayMatchUnder('')).toBe(true);
  });

  it('finish on a glob that made the old regular expression backtrack for minutes', () => {
    const root = mkdtempSync(join(tmpdir(), 'rules-lint-deep-glob-'));
    const deep = join(root, ...Array.from({ length: 40 }, () => 'd'));
    mkdirSync(deep, { recursive: true });
    writeFileSync(join(deep, 'b.json'), '[]\n');
    const pattern = `${'**/'.repeat(12)}a.json`;
    const started = Date.now();
    expect(() => expandInputs([pattern], root)).toThrow(UsageError);
    expect(compilePathGlob(pattern).matches(`${'d/'.repeat(40)}a.json`)).toBe(true);
    // A generous bound: the old code took 23 s with 8 `**/` on this path, and grows with each one.
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
