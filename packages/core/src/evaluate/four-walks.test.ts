import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildAutomatonTable, START } from './automaton-table.js';
import {
  encodeUtf8,
  fitsFourWalks,
  fourWalks,
  KEEP_LIMIT,
  keptEnds,
  keptPositions,
  keptStates,
} from './four-walks.js';

/** What one run of the four walks kept, walk by walk, and the state it ended in. */
function walked(
  table: NonNullable<ReturnType<typeof buildAutomatonTable>>,
  text: string,
  readWords: boolean,
) {
  const bytes = encodeUtf8(text);
  const overlap = table.longestBytes - 1;
  if (!fitsFourWalks(bytes.length, overlap)) return null;
  const start = table.next[START]!;
  const last = fourWalks(
    table.next,
    table.byteClass,
    bytes,
    start < 0 ? ~start : start,
    overlap,
    readWords,
  );
  const kept: number[][] = [];
  for (let walk = 0; walk < 4; walk++) {
    const list: number[] = [];
    for (let k = walk * KEEP_LIMIT; k < keptEnds[walk]!; k++)
      list.push(keptStates[k]!, keptPositions[k]!);
    kept.push(list);
  }
  return { last, kept };
}

describe('the four walks', () => {
  it('keep the same occurrences whether they read words or bytes', () => {
    const caseArb = fc.record({
      literals: fc.uniqueArray(
        fc.string({ unit: fc.constantFrom('a', 'b', 'é', '€'), minLength: 1, maxLength: 12 }),
        {
          minLength: 1,
          maxLength: 8,
        },
      ),
      text: fc.string({
        unit: fc.constantFrom('a', 'b', 'c', 'é', '€', '\uD800'),
        minLength: 256,
        maxLength: 1500,
      }),
    });
    fc.assert(
      fc.property(caseArb, ({ literals, text }) => {
        const table = buildAutomatonTable(
          literals.map((literal) => ({ text: literal, atStart: false, atEnd: false })),
          () => true,
        )!;
        const byWords = walked(table, text, true);
        const byBytes = walked(table, text, false);
        expect(byWords).toEqual(byBytes);
        expect(byWords).not.toBeNull();
      }),
      { numRuns: 300 },
    );
  });
});
