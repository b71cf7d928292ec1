import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type AnchoredLiteral, LiteralAutomaton } from './literal-automaton.js';

interface Occurrences {
  firstEnd: number;
  lastEnd: number;
}

/** Every literal that occurs, with where it first and last ends, by trying every offset. */
function occurrencesByHand(literals: readonly AnchoredLiteral[], text: string) {
  const found = new Map<number, Occurrences>();
  literals.forEach((literal, index) => {
    const ends: number[] = [];
    for (let start = 0; start + literal.text.length <= text.length; start++) {
      if (literal.atStart && start !== 0) continue;
      const end = start + literal.text.length;
      if (literal.atEnd && end !== text.length) continue;
      if (text.startsWith(literal.text, start)) ends.push(end);
    }
    if (ends.length > 0) found.set(index, { firstEnd: ends[0]!, lastEnd: ends[ends.length - 1]! });
  });
  return found;
}

function occurrencesScanned(automaton: LiteralAutomaton, text: string) {
  const count = automaton.scan(text, true);
  const found = new Map<number, Occurrences>();
  for (let f = 0; f < count; f++) {
    const literal = automaton.found[f]!;
    expect(found.has(literal)).toBe(false);
    found.set(literal, {
      firstEnd: automaton.firstEnd[literal]!,
      lastEnd: automaton.lastEnd[literal]!,
    });
  }
  return found;
}

function distinct(literals: AnchoredLiteral[]): AnchoredLiteral[] {
  const keys = new Set<string>();
  return literals.filter((literal) => {
    const key = `${literal.atStart}${literal.atEnd}${literal.text}`;
    if (keys.has(key)) return false;
    keys.add(key);
    return true;
  });
}

const literalArb = fc.record({
  text: fc.string({ unit: fc.constantFrom('a', 'b', 'é'), minLength: 1, maxLength: 40 }),
  atStart: fc.boolean(),
  atEnd: fc.boolean(),
});

describe('the literal automaton', () => {
  it('reports every literal that occurs, with its first and last end, on short and long texts', () => {
    const caseArb = fc
      .array(literalArb, { minLength: 1, maxLength: 12 })
      .map(distinct)
      .chain((literals) =>
        fc.tuple(
          fc.constant(literals),
          // Texts made of the literals and stray units, often past 256 units (the two-walk scan).
          fc
            .array(
              fc.oneof(
                fc.constantFrom(...literals.map((literal) => literal.text)),
                fc.constantFrom('a', 'b', 'c', 'é'),
              ),
              { maxLength: 160, size: 'max' },
            )
            .map((pieces) => pieces.join('')),
        ),
      );
    fc.assert(
      fc.property(caseArb, ([literals, text]) => {
        const automaton = LiteralAutomaton.build(literals);
        if (automaton === null) throw new Error('so few literals always fit');
        expect(occurrencesScanned(automaton, text)).toEqual(occurrencesByHand(literals, text));
      }),
      { numRuns: 400 },
    );
  });

  it('finds a lone occurrence wherever it sits in a long text', () => {
    const caseArb = fc.record({
      marker: fc.string({ unit: fc.constantFrom('a', 'b', 'é'), maxLength: 60 }),
      before: fc.string({ unit: fc.constantFrom('a', 'b', 'é'), minLength: 200, maxLength: 900 }),
      after: fc.string({ unit: fc.constantFrom('a', 'b', 'é'), minLength: 0, maxLength: 900 }),
      others: fc.array(literalArb, { maxLength: 6 }),
    });
    fc.assert(
      fc.property(caseArb, ({ marker, before, after, others }) => {
        // 'd' occurs nowhere else, so this literal occurs exactly once.
        const literals = distinct([
          { text: `d${marker}`, atStart: false, atEnd: false },
          ...others,
        ]);
        const text = `${before}d${marker}${after}`;
        const automaton = LiteralAutomaton.build(literals)!;
        expect(occurrencesScanned(automaton, text)).toEqual(occurrencesByHand(literals, text));
      }),
      { numRuns: 400 },
    );
  });

  it('stays exact when the second walk meets more occurrences than it keeps', () => {
    const literals: AnchoredLiteral[] = [
      { text: 'a', atStart: false, atEnd: false },
      { text: 'ab', atStart: false, atEnd: true },
      { text: 'aa', atStart: true, atEnd: false },
      { text: 'ba', atStart: false, atEnd: false },
    ];
    const automaton = LiteralAutomaton.build(literals)!;
    for (const text of ['a'.repeat(20_000), `${'a'.repeat(20_000)}b`, `${'ab'.repeat(9_000)}`]) {
      expect(occurrencesScanned(automaton, text)).toEqual(occurrencesByHand(literals, text));
    }
  });

  it('finds an occurrence that straddles the middle of a long text', () => {
    const needle = `${'x'.repeat(30)}y`;
    const literals: AnchoredLiteral[] = [{ text: needle, atStart: false, atEnd: false }];
    const automaton = LiteralAutomaton.build(literals)!;
    for (let at = 480; at < 520; at++) {
      const text = `${'x'.repeat(at)}y${'z'.repeat(1000 - at)}`;
      expect(occurrencesScanned(automaton, text)).toEqual(occurrencesByHand(literals, text));
    }
  });
});
