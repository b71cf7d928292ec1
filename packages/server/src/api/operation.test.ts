import { OPERATION_CONTRACTS } from '@airlock/core';
import { describe, expect, it } from 'vitest';
import { declaresCode } from './operation.js';
import { OPERATIONS } from './operations.js';

describe('declaresCode', () => {
  it('accepts an operation’s own codes and the common ones, and nothing else', () => {
    const approve = OPERATION_CONTRACTS['decisions.approve'];
    expect(declaresCode(approve, 'task_not_waiting')).toBe(true);
    expect(declaresCode(approve, 'rate_limited')).toBe(true);
    expect(declaresCode(approve, 'lease_lost')).toBe(false);
    expect(declaresCode(OPERATION_CONTRACTS['profile.get'], 'invalid_configuration')).toBe(false);
  });
});

describe('the server registry', () => {
  it('serves every contract of core, in its order, each bound to its own name', () => {
    expect(OPERATIONS.map((operation) => operation.name)).toEqual(Object.keys(OPERATION_CONTRACTS));
  });
});
