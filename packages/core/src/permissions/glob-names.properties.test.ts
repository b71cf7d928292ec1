import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileRootedPattern } from './rooted-pattern.js';
import { globNamesMiss, holdsGuardedPaths } from './target-coverage.js';
import { foldedPathText } from './targets.js';

/**
 * A glob whose last segment may spell a guarded path's last segment, or the last segment of a
 * directory holding every guarded path, is never read as missing them: for every matched path,
 * case set aside, every such name and every spelling of its last segment with a `*` or a `?` in it,
 * globNamesMiss says false.
 */
describe('globNamesMiss never misses a name that is or holds a guarded path', () => {
  it('for small patterns, the paths they match and the names above them', () => {
    const names = ['a', 'ab', '.env', 'k.pem', 'x.ts', 'K.PEM'];
    const segment = fc.constantFrom(...names);
    const pattern = fc
      .array(fc.constantFrom(...names, '*', '**', '*.pem', '.e*', 'a?'), {
        minLength: 1,
        maxLength: 4,
      })
      .map((parts) => parts.join('/'));
    const path = fc.array(segment, { minLength: 1, maxLength: 4 });
    let checked = 0;
    fc.assert(
      fc.property(
        pattern,
        path,
        fc.nat(),
        fc.nat(),
        fc.nat(),
        fc.boolean(),
        (source, segments, pick, from, to, question) => {
          const guarded = segments.join('/');
          // A deny reads a path as a file system that ignores case does (`K.PEM` under `*.pem`).
          const folded = compileRootedPattern(foldedPathText(source));
          if (!folded.matches(foldedPathText(guarded))) return;
          const at = pick % segments.length;
          const name = segments.slice(0, at + 1).join('/');
          // Only the guarded path itself or a directory holding every guarded path counts.
          if (at !== segments.length - 1 && !holdsGuardedPaths(source, name)) return;
          checked += 1;
          const named = segments[at]!;
          const start = from % (named.length + 1);
          const end = start + (to % (named.length - start + 1));
          const wildcard = question && end > start ? '?'.repeat(end - start) : '*';
          const last = `${named.slice(0, start)}${wildcard}${named.slice(end)}`;
          expect(globNamesMiss(source, last), `${source}: ${name} as ${last}`).toBe(false);
        },
      ),
      { numRuns: 4000 },
    );
    // The draw must reach matching names at all for the property to say anything.
    expect(checked).toBeGreaterThan(50);
  });
});
