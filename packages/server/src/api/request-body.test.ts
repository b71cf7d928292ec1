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
    expect(trpcBodyLimit('runs.stop,executor.commit', agent, OPERATIONS)).toBe(MIB);
  });

  it('reads no body for a call no named operation admits (its plane refused, no such procedure)', () => {
    expect(trpcBodyLimit('hooks.event', { limit: MIB, plane: 'executor' }, OPERATIONS)).toBe(0);
    expect(trpcBodyLimit('hooks.event', { limit: MIB, plane: null }, OPERATIONS)).toBe(0);
    expect(trpcBodyLimit('no.such', { limit: MIB, plane: 'agent' }, OPERATIONS)).toBe(0);
    // A limit above the floor stays.
    expect(trpcBodyLimit('hooks.event', { limit: 32 * MIB, plane: 'agent' }, OPERATIONS)).toBe(
      32 * MIB,
    );
  });
});
