import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileRootedPattern } from './rooted-pattern.js';
import { globMayReach } from './target-coverage.js';

/**
 * A shell glob that may name a path a pattern matches, or a directory above one, is never read
 * as reaching nothing: for every matched path and every wildcard spelling of one of its
 * segments (`*`, the segment with a `?`), globMayReach says it may reach.
 */
describe('globMayReach never misses a glob naming a guarded path or a directory above one', () => {
  it('for small patterns and the paths they match', () => {
    const segment = fc.constantFrom('a', 'b', 'ab', 'k.x');
    const pattern = fc
      .array(fc.constantFrom('a', 'b', 'ab', 'k.x', '*', '**', '*.x', 'a?'), {
        minLength: 1,
        maxLength: 4,
      })
      .map((parts) => parts.join('/'));
    const path = fc.array(segment, { minLength: 1, maxLength: 4 });
    let checked = 0;
    fc.assert(
      fc.property(pattern, path, fc.nat(), fc.boolean(), (source, segments, pick, star) => {
        if (!compileRootedPattern(source).matches(segments.join('/'))) return;
        checked += 1;
        const at = pick % segments.length;
        const named = segments[at]!;
        const entry = star ? '*' : `${named.slice(0, -1)}?`;
        const directory = at === 0 ? '.' : segments.slice(0, at).join('/');
        expect(globMayReach(source, directory, entry), `${source}: ${directory} ${entry}`).toBe(
          true,
        );
      }),
      { numRuns: 4000 },
    );
    // The draw must reach matching pairs at all for the property to say anything.
    expect(checked).toBeGreaterThan(50);
  });
});
