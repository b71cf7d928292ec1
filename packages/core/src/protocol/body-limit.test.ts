import { describe, expect, it } from 'vitest';
import { readBodyLimitHeader } from './body-limit.js';

describe('readBodyLimitHeader', () => {
  it('reads plain decimal bytes within what a kernel can be set to', () => {
    expect(readBodyLimitHeader('65536')).toBe(65_536);
    expect(readBodyLimitHeader('1024')).toBe(1024);
    expect(readBodyLimitHeader('1073741824')).toBe(1_073_741_824);
  });

  it('reads anything else as no limit said, so the reader keeps its default', () => {
    for (const value of [
      null,
      undefined,
      '',
      '1023',
      '1073741825',
      '0x10000',
      '1e6',
      ' 65536',
      '065536',
      '-1',
      '65536, 65536',
    ]) {
      expect(readBodyLimitHeader(value)).toBeNull();
    }
  });
});
