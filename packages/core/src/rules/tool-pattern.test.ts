import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { resolveToolName } from './tool-pattern.js';

/** The grammar's reading of a runner-qualified callable, as a RegExp. */
const QUALIFIED = /^(.+)__[0-9a-f]{12}$/;

describe('resolveToolName', () => {
  it('strips a runner qualification exactly as the RegExp reading does', () => {
    const unit = fc.constantFrom(
      'a',
      'b',
      '_',
      '0',
      'f',
      'F',
      'g',
      '9',
      '\n',
      '\r',
      '\u2028',
      'é',
      '\uD800',
    );
    const name = fc.oneof(
      fc.array(unit, { maxLength: 20 }).map((units) => units.join('')),
      fc
        .tuple(
          fc.array(unit, { maxLength: 5 }).map((units) => units.join('')),
          fc.array(fc.constantFrom('0', '9', 'a', 'f', 'A', 'g'), { minLength: 11, maxLength: 13 }),
        )
        .map(([served, hex]) => `${served}__${hex.join('')}`),
    );
    fc.assert(
      fc.property(name, (candidate) => {
        expect(resolveToolName(candidate)).toBe(QUALIFIED.exec(candidate)?.[1] ?? candidate);
      }),
      { numRuns: 5000 },
    );
  });

  it('applies aliases after stripping, and only own keys', () => {
    const aliases = { shell: 'bash' };
    expect(resolveToolName('shell__0123456789ab', aliases)).toBe('bash');
    expect(resolveToolName('shell', aliases)).toBe('bash');
    expect(resolveToolName('toString', aliases)).toBe('toString');
  });
});
