import { describe, expect, it } from 'vitest';
import { OPERATIONS } from './operations.js';
import { trpcBodyLimit } from './request-body.js';

const MIB = 1024 * 1024;

describe('trpcBodyLimit', () => {
  it('takes the largest floor of the operations a batch calls, for a caller of their plane', () => {
    const agent = { limit: MIB, plane: 'agent' as const };
    expect(trpcBodyLimit('hooks.event', agent, OPERATIONS)).toBe(16 * MIB);
    expect(trpcBodyLimit('runs.stop,hooks.event', agent, OPERATIONS)).toBe(16 * MIB);
    expect(trpcBodyLimit('runs.stop', agent, OPERATIONS)).toBe(MIB);
    expect(trpcBodyLimit('no.such', agent, OPERATIONS)).toBe(MIB);
  });

  it("keeps the kernel's limit for a caller the operation's plane refuses, or none", () => {
    expect(trpcBodyLimit('hooks.event', { limit: MIB, plane: 'executor' }, OPERATIONS)).toBe(MIB);
    expect(trpcBodyLimit('hooks.event', { limit: MIB, plane: null }, OPERATIONS)).toBe(MIB);
    // A limit above the floor stays.
    expect(trpcBodyLimit('hooks.event', { limit: 32 * MIB, plane: 'agent' }, OPERATIONS)).toBe(
      32 * MIB,
    );
  });
});
