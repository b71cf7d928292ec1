import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type AnchoredLiteral, LiteralAutomaton } from './literal-automaton.js';

interface Occurrences {
  firstEnd: number;
  /** Left out for a literal whose last end was not wanted. */
  lastEnd?: number;
}

const encoder = new TextEncoder();

/** Whether `needle` occurs in `bytes` at `start`. */
function bytesAt(bytes: Uint8Array, needle: Uint8Array, start: number): boolean {
  for (let i = 0; i < needle.length; i++) if (bytes[start + i] !== needle[i]) return false;
  return true;
}

/**
 * Every literal that occurs, with where it first and last ends, by trying
 * every offset of the text's UTF-8 form (a lone surrogate as U+FFFD).
 */
function occurrencesByHand(literals: readonly AnchoredLiteral[], text: string) {
  const found = new Map<number, Occurrences>();
  const bytes = encoder.encode(text);
  literals.forEach((literal, index) => {
    const needle = encoder.encode(literal.text);
    const ends: number[] = [];
    for (let start = 0; start + needle.length <= bytes.length; start++) {
      if (literal.atStart && start !== 0) continue;
      const end = start + needle.length;
      if (literal.atEnd && end !== bytes.length) continue;
      if (bytesAt(bytes, needle, start)) ends.push(end);
    }
    if (ends.length > 0) found.set(index, { firstEnd: ends[0]!, lastEnd: ends[ends.length - 1]! });
  });
  return found;
}

function occurrencesScanned(
  automaton: LiteralAutomaton,
  text: string | readonly string[],
  lastWanted = always,
) {
  const count = automaton.scan(text);
  const found = new Map<number, Occurrences>();
  for (let f = 0; f < count; f++) {
    const literal = automaton.found[f]!;
    expect(found.has(literal)).toBe(false);
    const firstEnd = automaton.firstEnd[literal]!;
    found.set(
      literal,
      lastWanted(literal) ? { firstEnd, lastEnd: automaton.lastEnd[literal]! } : { firstEnd },
    );
  }
  return found;
}

const always = (_literal: number): boolean => true;

/** The by-hand occurrences, without the last ends that were not wanted. */
function wantedOnly(found: Map<number, Occurrences>, lastWanted: (literal: number) => boolean) {
  for (const [literal, { firstEnd }] of found)
    if (!lastWanted(literal)) found.set(literal, { firstEnd });
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

/** Units that make one, two, three and four UTF-8 bytes, and U+FFFD, which a lone surrogate reads as. */
const LITERAL_UNITS = ['a', 'b', 'é', '€', '😀', '\uFFFD'];
/** The same, plus units no literal holds and lone surrogates. */
const TEXT_UNITS = [...LITERAL_UNITS, 'c', '\uD800', '\uDC00'];

const literalArb = fc.record({
  text: fc.string({ unit: fc.constantFrom(...LITERAL_UNITS), minLength: 1, maxLength: 40 }),
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
          // Which literals want their last end: all of them, or a random few.
          fc.oneof(fc.constant(null), fc.array(fc.boolean(), { minLength: 12, maxLength: 12 })),
          // Texts made of the literals and stray units, often past 256 units (four walks over bytes).
          fc
            .array(
              fc.oneof(
                fc.constantFrom(...literals.map((literal) => literal.text)),
                fc.constantFrom(...TEXT_UNITS),
              ),
              { maxLength: 160, size: 'max' },
            )
            .map((pieces) => pieces.join('')),
        ),
      );
    fc.assert(
      fc.property(caseArb, ([literals, wanted, text]) => {
        const lastWanted = wanted ? (literal: number) => wanted[literal]! : always;
        const automaton = LiteralAutomaton.build(literals, lastWanted);
        if (automaton === null) throw new Error('so few literals always fit');
        expect(occurrencesScanned(automaton, text, lastWanted)).toEqual(
          wantedOnly(occurrencesByHand(literals, text), lastWanted),
        );
      }),
      { numRuns: 400 },
    );
  });

  it('finds a lone occurrence wherever it sits in a long text', () => {
    const caseArb = fc.record({
      marker: fc.string({ unit: fc.constantFrom(...LITERAL_UNITS), maxLength: 60 }),
      before: fc.string({ unit: fc.constantFrom(...TEXT_UNITS), minLength: 200, maxLength: 900 }),
      after: fc.string({ unit: fc.constantFrom(...TEXT_UNITS), minLength: 0, maxLength: 900 }),
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

  it('stays exact when a later walk meets more occurrences than it keeps', () => {
    const literals: AnchoredLiteral[] = [
      { text: 'a', atStart: false, atEnd: false },
      { text: 'ab', atStart: false, atEnd: true },
      { text: 'aa', atStart: true, atEnd: false },
      { text: 'ba', atStart: false, atEnd: false },
    ];
    const automaton = LiteralAutomaton.build(literals)!;
    const texts = [
      'a'.repeat(20_000),
      `${'a'.repeat(20_000)}b`,
      `${'ab'.repeat(9_000)}`,
      // Full lists in the later walks only: 4,000 occurrences in each quarter, then none.
      ...[1, 2, 3].map((quarter) =>
        `${'c'.repeat(quarter * 4_500)}${'a'.repeat(4_000)}`.padEnd(18_000, 'c'),
      ),
    ];
    for (const text of texts) {
      expect(occurrencesScanned(automaton, text)).toEqual(occurrencesByHand(literals, text));
    }
  });

  it('finds an occurrence that straddles where one walk hands over to the next', () => {
    const needle = `${'x'.repeat(30)}y`;
    const literals: AnchoredLiteral[] = [{ text: needle, atStart: false, atEnd: false }];
    const automaton = LiteralAutomaton.build(literals)!;
    // 1,000 bytes and a 30-byte overlap: the walks start at 0, 244, 488 and 732.
    for (const handover of [244, 488, 732]) {
      for (let at = handover - 40; at < handover + 40; at++) {
        const text = `${'x'.repeat(at)}y${'z'.repeat(999 - at)}`;
        expect(occurrencesScanned(automaton, text)).toEqual(occurrencesByHand(literals, text));
      }
    }
  });

  it('reads an argv in parts as it reads the same words joined by spaces', () => {
    const caseArb = fc.record({
      literals: fc.array(literalArb, { minLength: 1, maxLength: 8 }).map(distinct),
      parts: fc.array(fc.string({ unit: fc.constantFrom(...TEXT_UNITS, ' '), maxLength: 30 }), {
        maxLength: 12,
      }),
    });
    fc.assert(
      fc.property(caseArb, ({ literals, parts }) => {
        // Literals that span a space between parts, too.
        const spanning =
          parts.length > 1
            ? [
                {
                  text: `${parts[0]!.slice(-2)} ${parts[1]!.slice(0, 2)}`,
                  atStart: false,
                  atEnd: false,
                },
              ]
            : [];
        const all = distinct([
          ...literals,
          ...spanning.filter((literal) => literal.text.trim() !== ''),
        ]);
        const automaton = LiteralAutomaton.build(all)!;
        const joined = parts.join(' ');
        const inParts = occurrencesScanned(automaton, parts);
        expect(automaton.scannedBytes).toBe(encoder.encode(joined).length);
        expect(inParts).toEqual(occurrencesByHand(all, joined));
      }),
      { numRuns: 400 },
    );
  });
});
