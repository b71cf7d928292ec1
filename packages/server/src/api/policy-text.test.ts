import { describe, expect, it } from 'vitest';
import { AirlockError } from '../errors.js';
import { assertPolicyTextIsUnicode } from './policy-text.js';

const NUL = '\u0000';

describe('a declaration whose policy texts the kernel cannot keep', () => {
  it('answers invalid_configuration with every problem, a lone surrogate beside a NUL', () => {
    let thrown: unknown;
    try {
      assertPolicyTextIsUnicode(
        {
          approval_rules: [{ reason: `a${NUL}` }, { reason: '\uD800' }],
          input: `the model may read ${NUL}`,
        },
        ['input'],
      );
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(AirlockError);
    const error = thrown as AirlockError;
    expect(error.code).toBe('invalid_configuration');
    expect(error.problems?.map((problem) => [problem.code, problem.pointer])).toEqual([
      ['holds_nul', '/approval_rules/0/reason'],
      ['not_unicode', '/approval_rules/1/reason'],
    ]);
  });
});
