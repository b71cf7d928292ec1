import { describe, expect, it } from 'vitest';
import { inheritedTraceparent, traceparentOf } from './traceparent.js';

const valid = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

describe('traceparentOf', () => {
  it('passes a version-00 traceparent, trimmed', () => {
    expect(traceparentOf(valid)).toBe(valid);
    expect(traceparentOf(` ${valid}\n`)).toBe(valid);
  });

  it.each([
    undefined,
    42,
    '',
    valid.toUpperCase(),
    valid.replace(/^00/, '01'),
    `00-${'0'.repeat(32)}-00f067aa0ba902b7-01`,
    `00-4bf92f3577b34da6a3ce929d0e0e4736-${'0'.repeat(16)}-01`,
    `${valid}-extra`,
    '00-4bf92f35-00f067aa0ba902b7-01',
  ])('refuses %j', (value) => {
    expect(traceparentOf(value)).toBeNull();
  });

  it('reads TRACEPARENT from an environment', () => {
    expect(inheritedTraceparent({ TRACEPARENT: valid })).toBe(valid);
    expect(inheritedTraceparent({ TRACEPARENT: 'garbage' })).toBeNull();
    expect(inheritedTraceparent({})).toBeNull();
  });
});
