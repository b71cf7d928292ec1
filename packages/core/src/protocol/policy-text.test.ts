import { describe, expect, it } from 'vitest';
import { policyTextProblems } from './policy-text.js';

const NUL = '\u0000';

describe('policy texts a person reads hold no NUL, and no text a lone surrogate', () => {
  it('refuses NUL in a rule, overlay or guardrail reason and in a contract constraint, with a pointer each', () => {
    const problems = policyTextProblems(
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
      policyTextProblems({
        approval_rules: [{ tool: 'bash', verdict: 'deny', path: 'command', match: `*${NUL}*` }],
        groups: [{ rules: [{ argument_patterns: { '/reason': `*${NUL}*` } }] }],
      }),
    ).toEqual([]);
  });

  it('names a lone surrogate in a text or a key, anywhere in the declaration', () => {
    expect(
      policyTextProblems({ approval_rules: [{ tool: 'bash', match: '\uD800*' }], 'k\uDC00': 1 }),
    ).toEqual([
      expect.objectContaining({ code: 'not_unicode', pointer: '/approval_rules/0/match' }),
      expect.objectContaining({ code: 'not_unicode', pointer: '/k\uDC00' }),
    ]);
    expect(policyTextProblems({ 'a/b~c': '\uD800' })[0]?.pointer).toBe('/a~1b~0c');
  });
});
