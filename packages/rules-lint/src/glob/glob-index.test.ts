import { matchGlob } from '@airlock/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GlobIndex } from './glob-index.js';

const piece = fc.constantFrom('a', 'b', 'ab', 'abc', 'cab', 'é', '日本', '*', '?');
const glob = fc.array(piece, { maxLength: 5 }).map((parts) => parts.join(''));
const text = fc
  .array(fc.constantFrom('a', 'b', 'c', 'é', '日', '本'), { maxLength: 8 })
  .map((parts) => parts.join(''));

describe('GlobIndex', () => {
  it('finds exactly the globs that match a text, as trying each would', () => {
    fc.assert(
      fc.property(
        fc.array(glob, { maxLength: 12 }),
        fc.array(text, { maxLength: 6 }),
        (globs, texts) => {
          const index = new GlobIndex<number>();
          globs.forEach((source, position) => {
            index.add(source, position);
          });
          for (const candidate of texts) {
            const expected = globs.flatMap((source, position) =>
              matchGlob(source, candidate) ? [position] : [],
            );
            expect(index.matching(candidate).sort((a, b) => a - b)).toEqual(expected);
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('never files a glob core refuses', () => {
    const index = new GlobIndex<string>();
    index.add('a\uD800*', 'lone');
    expect(index.matching('a\uFFFDb')).toEqual([]);
  });
});
