import { describe, expect, it } from 'vitest';
import type { ProblemCode } from '../issues/problem.js';
import { validateRuleList } from './validate-rules.js';

function problemsOf(input: unknown) {
  const result = validateRuleList(input);
  return result.ok ? [] : result.problems.map(({ code, pointer }) => ({ code, pointer }));
}

describe('validateRuleList', () => {
  it('accepts the grammar example of the spec', () => {
    const result = validateRuleList([
      {
        tool: 'bash|start_process',
        path: 'command',
        match: '*git push*--force*',
        verdict: 'deny',
        reason: 'force push',
      },
      { tool: 'write|edit', path: 'path', match: '*.env', verdict: 'deny' },
      { tool: 'memory_*|ask|delegate_task|code|skill', verdict: 'allow' },
      { tool: 'bash|start_process', path: 'command', match: 'ls*', verdict: 'allow' },
      { tool: 'bash', verdict: 'ask', origin: 'author' },
    ]);
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.value.rules).toHaveLength(5);
  });

  const cases: [string, unknown, ProblemCode, string][] = [
    [
      'a seventh key',
      [{ tool: 'bash', verdict: 'allow', when: 'always' }],
      'unknown_key',
      '/0/when',
    ],
    ['a missing tool', [{ verdict: 'allow' }], 'tool_missing', '/0'],
    ['a tool that is not text', [{ tool: 3, verdict: 'allow' }], 'tool_not_string', '/0/tool'],
    [
      'an empty tool alternative',
      [{ tool: 'bash|', verdict: 'allow' }],
      'tool_alternative_empty',
      '/0/tool',
    ],
    ['a lone pipe', [{ tool: '|', verdict: 'allow' }], 'tool_alternative_empty', '/0/tool'],
    ['an empty tool', [{ tool: '', verdict: 'allow' }], 'tool_alternative_empty', '/0/tool'],
    [
      'a tool glob that does not compile',
      [{ tool: 'b\uD800', verdict: 'allow' }],
      'glob_invalid',
      '/0/tool',
    ],
    ['a missing verdict', [{ tool: 'bash' }], 'verdict_missing', '/0'],
    [
      'a verdict outside the three',
      [{ tool: 'bash', verdict: 'maybe' }],
      'verdict_invalid',
      '/0/verdict',
    ],
    [
      'an origin outside the three',
      [{ tool: 'bash', verdict: 'allow', origin: 'user' }],
      'origin_invalid',
      '/0/origin',
    ],
    [
      'a match without a path',
      [{ tool: 'bash', verdict: 'deny', match: '*rm*' }],
      'match_without_path',
      '/0/match',
    ],
    [
      'an empty path segment (a..b)',
      [{ tool: 'bash', verdict: 'deny', path: 'a..b' }],
      'path_segment_empty',
      '/0/path',
    ],
    [
      'an empty path segment (.a)',
      [{ tool: 'bash', verdict: 'deny', path: '.a' }],
      'path_segment_empty',
      '/0/path',
    ],
    [
      'an empty path segment (a.)',
      [{ tool: 'bash', verdict: 'deny', path: 'a.' }],
      'path_segment_empty',
      '/0/path',
    ],
    [
      'an empty path',
      [{ tool: 'bash', verdict: 'deny', path: '' }],
      'path_segment_empty',
      '/0/path',
    ],
    [
      'a path that is not text',
      [{ tool: 'bash', verdict: 'deny', path: ['a'] }],
      'path_not_string',
      '/0/path',
    ],
    [
      'a match that is not text',
      [{ tool: 'bash', verdict: 'deny', path: 'a', match: 1 }],
      'match_not_string',
      '/0/match',
    ],
    [
      'a match glob that does not compile',
      [{ tool: 'bash', verdict: 'deny', path: 'a', match: '\uDC00*' }],
      'glob_invalid',
      '/0/match',
    ],
    [
      'a match glob with a ? part too complex to search fast',
      [{ tool: 'bash', verdict: 'deny', path: 'a', match: `*${'a?'.repeat(200)}*` }],
      'glob_too_complex',
      '/0/match',
    ],
    [
      'a tool glob with a ? part too complex to search fast',
      [{ tool: `${'b?'.repeat(200)}`, verdict: 'deny' }],
      'glob_too_complex',
      '/0/tool',
    ],
    [
      'a reason that is not text',
      [{ tool: 'bash', verdict: 'deny', reason: false }],
      'reason_not_string',
      '/0/reason',
    ],
    ['a list that is not an array', { tool: 'bash', verdict: 'allow' }, 'rules_not_array', ''],
    ['a rule that is not an object', ['bash'], 'rule_not_object', '/0'],
    ['a rule that is an array', [[]], 'rule_not_object', '/0'],
    ['a rule that is null', [null], 'rule_not_object', '/0'],
  ];

  it.each(cases)('refuses %s', (_name, input, code, pointer) => {
    expect(problemsOf(input)).toContainEqual({ code, pointer });
  });

  it('refuses an envelope over 64 KiB and accepts one just under', () => {
    const reason = (size: number) => 'x'.repeat(size);
    const over = [{ tool: 'bash', verdict: 'deny', reason: reason(65 * 1024) }];
    expect(problemsOf(over)).toEqual([{ code: 'envelope_too_large', pointer: '' }]);
    const overhead = JSON.stringify([{ tool: 'bash', verdict: 'deny', reason: '' }]).length;
    const atLimit = [{ tool: 'bash', verdict: 'deny', reason: reason(64 * 1024 - overhead) }];
    expect(validateRuleList(atLimit).ok).toBe(true);
    const oneOver = [{ tool: 'bash', verdict: 'deny', reason: reason(64 * 1024 - overhead + 1) }];
    expect(problemsOf(oneOver)).toEqual([{ code: 'envelope_too_large', pointer: '' }]);
  });

  it('counts the envelope in UTF-8 bytes, not characters', () => {
    const rule = { tool: 'bash', verdict: 'deny', reason: 'é'.repeat(33 * 1024) };
    expect(problemsOf([rule])).toEqual([{ code: 'envelope_too_large', pointer: '' }]);
  });

  it('puts no limit on a single field other than the envelope', () => {
    expect(
      validateRuleList([
        {
          tool: 'bash',
          verdict: 'deny',
          reason: 'r'.repeat(10_000),
          path: 'p',
          match: '*'.repeat(10_000),
        },
      ]).ok,
    ).toBe(true);
  });

  it('reports every problem, not only the first', () => {
    const problems = problemsOf([
      { tool: 'bash', verdict: 'allow', extra: 1 },
      { verdict: 'nope', origin: 'someone' },
      'not a rule',
      { tool: 'a||b', verdict: 'deny', match: '*' },
    ]);
    expect(problems).toEqual([
      { code: 'unknown_key', pointer: '/0/extra' },
      { code: 'tool_missing', pointer: '/1' },
      { code: 'verdict_invalid', pointer: '/1/verdict' },
      { code: 'origin_invalid', pointer: '/1/origin' },
      { code: 'rule_not_object', pointer: '/2' },
      { code: 'tool_alternative_empty', pointer: '/3/tool' },
      { code: 'match_without_path', pointer: '/3/match' },
    ]);
  });

  it('gives every problem a message a person can act on', () => {
    const result = validateRuleList([{ tool: 'bash', verdict: 'sometimes' }]);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problems[0]?.message).toMatch(/allow, ask or deny/);
  });

  it('escapes pointer tokens (RFC 6901)', () => {
    expect(problemsOf([{ tool: 'bash', verdict: 'allow', 'a/b~c': 1 }])).toEqual([
      { code: 'unknown_key', pointer: '/0/a~1b~0c' },
    ]);
  });

  it('never throws on hostile input', () => {
    const cyclic: Record<string, unknown> = { tool: 'bash', verdict: 'allow' };
    cyclic.self = cyclic;
    expect(problemsOf([cyclic]).map((p) => p.code)).toContain('not_serializable');
    expect(
      problemsOf([{ tool: 'bash', verdict: 'allow', reason: 10n }]).map((p) => p.code),
    ).toContain('not_serializable');
    for (const value of [undefined, null, 0, 'rules', true, {}]) {
      expect(problemsOf(value)).toContainEqual({ code: 'rules_not_array', pointer: '' });
    }
  });
});
