import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PROPERTY_SEED, propertySeed } from './property-seed.js';

describe('the property tests seed', () => {
  it('is fixed unless PROPERTY_SEED names another or asks for random draws', () => {
    expect(propertySeed(undefined)).toBe(DEFAULT_PROPERTY_SEED);
    expect(propertySeed('')).toBe(DEFAULT_PROPERTY_SEED);
    expect(propertySeed('42')).toBe(42);
    expect(propertySeed('-7')).toBe(-7);
    expect(propertySeed('random')).toBeUndefined();
  });

  it('refuses a seed that is not an integer, naming what it got', () => {
    expect(() => propertySeed('abc')).toThrow(
      'PROPERTY_SEED must be an integer or "random", not "abc"',
    );
    expect(() => propertySeed('1.5')).toThrow('not "1.5"');
  });

  it('reaches fast-check in every test file, so two runs draw the same cases', () => {
    const expected = propertySeed(process.env.PROPERTY_SEED);
    expect(fc.readConfigureGlobal().seed).toBe(expected);
    if (expected === undefined) return;
    const draw = () => fc.sample(fc.string(), 5);
    expect(draw()).toEqual(draw());
  });
});
