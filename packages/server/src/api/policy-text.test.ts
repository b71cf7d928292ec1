import { describe, expect, it } from 'vitest';
import { AirlockError } from '../errors.js';
import { assertPolicyTextIsUnicode, unreadableTextProblems } from './policy-text.js';

const NUL = '\u0000';

describe('policy texts a person reads hold no NUL', () => {
  it('refuses NUL in a rule, overlay or guardrail reason and in a contract constraint, with a pointer each', () => {
    const problems = unreadableTextProblems(
      {
        approval_rules: [{ tool: 'bash', verdict: 'deny', reason: `no${NUL}` }],
        groups: [{ rules: [{ verdict: 'deny', guardrail: true, reason: `frozen ${NUL}` }] }],
        action_contract: { constraints: [`keep ${NUL} backups`] },
        other: { constraints: `one ${NUL} text` },
      },
      '',
    );
    expect(problems).toEqual([
      expect.objectContaining({ code: 'holds_nul', pointer: '/approval_rules/0/reason' }),
      expect.objectContaining({ code: 'holds_nul', pointer: '/groups/0/rules/0/reason' }),
      expect.objectContaining({ code: 'holds_nul', pointer: '/action_contract/constraints/0' }),
      expect.objectContaining({ code: 'holds_nul', pointer: '/other/constraints' }),
    ]);
  });

  it('keeps NUL where it is matched, not read: a glob or an argument pattern may look for it', () => {
    expect(
      unreadableTextProblems({
        approval_rules: [{ tool: 'bash', verdict: 'deny', path: 'command', match: `*${NUL}*` }],
        groups: [{ rules: [{ argument_patterns: { '/reason': `*${NUL}*` } }] }],
      }),
    ).toEqual([]);
  });

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
