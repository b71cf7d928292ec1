import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_BODY_LIMIT, resultCommitsAsIs } from './commit-fit.js';

/** A number inside `depth` arrays. */
const nested = (depth: number): unknown => {
  let value: unknown = 1;
  for (let level = 0; level < depth; level++) value = [value];
  return value;
};

describe('whether the kernel takes a result as it is', () => {
  it('takes small JSON results', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 10 }), (value) => {
        const text = JSON.stringify(value ?? null);
        expect(resultCommitsAsIs(text, DEFAULT_BODY_LIMIT)).toBe(!text.includes('"__proto__"'));
      }),
    );
  });

  it('refuses a result past the body limit, counted in UTF-8 bytes', () => {
    const limit = 64 * 1024;
    const fits = JSON.stringify('x'.repeat(limit - 5000));
    expect(resultCommitsAsIs(fits, limit)).toBe(true);
    expect(resultCommitsAsIs(JSON.stringify('x'.repeat(limit)), limit)).toBe(false);
    // 20,000 characters of three bytes each: under the limit in characters, over it in bytes.
    expect(resultCommitsAsIs(JSON.stringify('€'.repeat(22_000)), limit)).toBe(false);
    expect(resultCommitsAsIs(JSON.stringify('😀'.repeat(9_000)), limit)).toBe(true);
    expect(resultCommitsAsIs(JSON.stringify('😀'.repeat(16_000)), limit)).toBe(false);
  });

  it('refuses a result nested past level 63 (the body is level 1), and a __proto__ key', () => {
    expect(resultCommitsAsIs(JSON.stringify(nested(63)), DEFAULT_BODY_LIMIT)).toBe(true);
    expect(resultCommitsAsIs(JSON.stringify(nested(64)), DEFAULT_BODY_LIMIT)).toBe(false);
    // Brackets inside strings do not count.
    expect(resultCommitsAsIs(JSON.stringify('['.repeat(100)), DEFAULT_BODY_LIMIT)).toBe(true);
    expect(resultCommitsAsIs('{"a":{"__proto__":{}}}', DEFAULT_BODY_LIMIT)).toBe(false);
  });
});
