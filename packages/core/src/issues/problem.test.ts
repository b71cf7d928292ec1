import { describe, expect, it } from 'vitest';
import { pointerFrom, pointerTo, pointerTokens } from './problem.js';

describe('JSON pointers (RFC 6901)', () => {
  it('escapes ~ and / in tokens and reads them back', () => {
    expect(pointerFrom(['a/b', '~c', 0])).toBe('/a~1b/~0c/0');
    expect(pointerTo('/rules', 'a/~')).toBe('/rules/a~1~0');
    expect(pointerTokens('/a~1b/~0c/0')).toEqual(['a/b', '~c', '0']);
    expect(pointerTokens('/~01')).toEqual(['~1']);
  });
  it('treats no tokens as the root', () => {
    expect(pointerFrom([])).toBe('');
    expect(pointerTokens('')).toEqual([]);
  });
});
