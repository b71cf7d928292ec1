import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findUncoveredText, globIncluded, toolPatternIncluded } from './inclusion.js';

const encoder = new TextEncoder();

/** Reference matcher by dynamic programming over bytes: obviously right, slow. */
function referenceMatch(pattern: string, text: Uint8Array): boolean {
  const tokens = [...encoder.encode(pattern)];
  // reach[j]: the first j tokens can match the bytes read so far.
  let reach = new Array<boolean>(tokens.length + 1).fill(false);
  reach[0] = true;
  for (let j = 0; j < tokens.length && tokens[j] === 0x2a; j++) reach[j + 1] = true;
  for (const byte of text) {
    const next = new Array<boolean>(tokens.length + 1).fill(false);
    for (let j = 0; j < tokens.length; j++) {
      if (!reach[j]) continue;
      const token = tokens[j];
      if (token === 0x2a) next[j] = true;
      else if (token === 0x3f || token === byte) next[j + 1] = true;
    }
    for (let j = 0; j < tokens.length; j++) if (next[j] && tokens[j] === 0x2a) next[j + 1] = true;
    reach = next;
  }
  return reach[tokens.length] === true;
}

/** Every byte string over `alphabet` up to `maxLength`. */
function allTexts(alphabet: readonly number[], maxLength: number): Uint8Array[] {
  const result: Uint8Array[] = [new Uint8Array()];
  let frontier: number[][] = [[]];
  for (let length = 1; length <= maxLength; length++) {
    const next: number[][] = [];
    for (const prefix of frontier) for (const byte of alphabet) next.push([...prefix, byte]);
    for (const text of next) result.push(Uint8Array.from(text));
    frontier = next;
  }
  return result;
}

// 'é' is two bytes (0xC3 0xA9), so `?` versus multi-byte characters is exercised.
const patternChar = fc.constantFrom('a', 'b', '*', '?', 'é');
const pattern = fc.array(patternChar, { maxLength: 4 }).map((chars) => chars.join(''));
const texts = allTexts([0x61, 0x62, 0x63, 0xc3, 0xa9], 5);

describe('glob inclusion, against brute force', () => {
  it('says "included" only when no short text refutes it, and "not" only with a real witness', () => {
    fc.assert(
      fc.property(pattern, fc.array(pattern, { minLength: 1, maxLength: 3 }), (a, bs) => {
        const uncovered = findUncoveredText(a, bs);
        expect(uncovered).not.toBeUndefined();
        const inB = (text: Uint8Array) => bs.some((b) => referenceMatch(b, text));
        if (uncovered === null || uncovered === undefined) {
          for (const text of texts) {
            if (referenceMatch(a, text)) expect(inB(text)).toBe(true);
          }
        } else {
          expect(referenceMatch(a, uncovered)).toBe(true);
          expect(inB(uncovered)).toBe(false);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('finds a brute-force counterexample whenever one exists among short texts', () => {
    fc.assert(
      fc.property(pattern, pattern, (a, b) => {
        const refuted = texts.some((text) => referenceMatch(a, text) && !referenceMatch(b, text));
        if (refuted) expect(globIncluded(a, b)).toBe(false);
      }),
      { numRuns: 400 },
    );
  });

  it('is reflexive and transitive', () => {
    fc.assert(
      fc.property(pattern, pattern, pattern, (a, b, c) => {
        expect(globIncluded(a, a)).toBe(true);
        if (globIncluded(a, b) && globIncluded(b, c)) expect(globIncluded(a, c)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});

describe('glob inclusion, worked examples', () => {
  it.each([
    ['git push', '*git push*', true],
    ['*git push*', 'git push', false],
    ['a*b', 'a*', true],
    ['a*', 'a*b', false],
    ['??', '*', true],
    ['é', '??', true],
    ['é', '?', false],
    ['**', '*', true],
    ['*', '**', true],
    ['*a*', '*', true],
    ['*a*a*', '*a*', true],
    ['*a*', '*a*a*', false],
    ['', '*', true],
    ['', '?*', false],
    ['?*', '*?', true],
  ])('%j ⊆ %j is %s', (a, b, expected) => {
    expect(globIncluded(a, b)).toBe(expected);
  });

  it('decides inclusion in a union that no single member contains', () => {
    expect(globIncluded('*', ['', '?*'])).toBe(true);
    expect(globIncluded('a*', ['a', 'a?*'])).toBe(true);
    expect(globIncluded('a*', ['ab*', 'aa*'])).toBe(false);
  });

  it('handles tool-pattern alternatives on both sides', () => {
    expect(toolPatternIncluded('bash|start_process', 'start_*|bash')).toBe(true);
    expect(toolPatternIncluded('bash|write', 'bash')).toBe(false);
    expect(toolPatternIncluded('memory_*', 'memory_read|memory_*')).toBe(true);
  });

  it('never confuses remembered answers for different lists', () => {
    expect(globIncluded('', [''])).toBe(true);
    expect(findUncoveredText('', [])).toEqual(new Uint8Array());
    expect(globIncluded('*', [])).toBe(false);
    expect(globIncluded('*', [''])).toBe(false);
    expect(globIncluded('a', ['a\u0000', ''])).toBe(false);
  });

  it('answers undefined, never a guess, when the state budget runs out', () => {
    // The samples of the subject are covered, so only the product can answer (included).
    expect(findUncoveredText('*a*b*a*b*', ['*ab*', '*a?*b*'])).toBeNull();
    expect(findUncoveredText('*a*b*a*b*', ['*ab*', '*a?*b*'], 3)).toBeUndefined();
  });

  it('answers a sample text as the witness when no other glob matches it', () => {
    expect(findUncoveredText('*a*b*a*b*', ['*b*a*b*a*', '*ab*ba*'])).toEqual(
      new TextEncoder().encode('abab'),
    );
  });

  it('follows core on a pattern core refuses: a lone surrogate matches nothing, so it is inside anything', () => {
    expect(findUncoveredText('a\uD800*', ['b'])).toBeNull();
    expect(globIncluded('*', ['a\uD800*'])).toBe(false);
  });
});
