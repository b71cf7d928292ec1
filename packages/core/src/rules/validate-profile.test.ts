import { describe, expect, it } from 'vitest';
import type { ProblemCode } from '../issues/problem.js';
import { validateProfileConfiguration } from './validate-profile.js';

function problemsOf(input: unknown) {
  const result = validateProfileConfiguration(input);
  return result.ok ? [] : result.problems.map(({ code, pointer }) => ({ code, pointer }));
}

describe('validateProfileConfiguration', () => {
  it('accepts a whole declaration and compiles its policy with the aliases', () => {
    const result = validateProfileConfiguration({
      approval_mode: 'rules',
      approval_rules: [{ tool: 'bash', verdict: 'allow' }],
      tool_names: ['bash', 'shell'],
      tool_aliases: { shell: 'bash' },
      lifecycle_hooks: { stop: { tool: 'check', timeout_ms: 1000, max_continuations: 2 } },
    });
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.value.policy.toolAliases).toEqual({ shell: 'bash' });
  });

  it('accepts an empty declaration and null or empty hooks without a mode', () => {
    expect(validateProfileConfiguration({}).ok).toBe(true);
    expect(validateProfileConfiguration({ lifecycle_hooks: null }).ok).toBe(true);
    expect(validateProfileConfiguration({ lifecycle_hooks: {} }).ok).toBe(true);
  });

  const cases: [string, unknown, ProblemCode, string][] = [
    ['a declaration that is not an object', [], 'configuration_not_object', ''],
    ['an unknown key', { approval_rulez: [] }, 'unknown_key', '/approval_rulez'],
    ['a mode outside the three', { approval_mode: 'yolo' }, 'mode_invalid', '/approval_mode'],
    ['rules that are not an array', { approval_rules: {} }, 'rules_not_array', '/approval_rules'],
    [
      'a bad rule, pointed into the list',
      {
        approval_rules: [
          { tool: 'bash', verdict: 'allow' },
          { tool: 'x', verdict: 'deny', match: '*' },
        ],
      },
      'match_without_path',
      '/approval_rules/1/match',
    ],
    [
      'tool names that are not an array',
      { tool_names: 'bash' },
      'tool_names_invalid',
      '/tool_names',
    ],
    ['an empty tool name', { tool_names: ['bash', ''] }, 'tool_names_invalid', '/tool_names/1'],
    [
      'aliases that are not an object',
      { tool_aliases: ['a'] },
      'tool_aliases_invalid',
      '/tool_aliases',
    ],
    [
      'an alias to nothing',
      { tool_aliases: { shell: 3 } },
      'tool_aliases_invalid',
      '/tool_aliases/shell',
    ],
    [
      'hooks without a mode',
      { lifecycle_hooks: { turn_start: { tool: 'check', timeout_ms: 10 } } },
      'hooks_require_mode',
      '',
    ],
    [
      'hooks that are not an object',
      { approval_mode: 'ask', lifecycle_hooks: [] },
      'hooks_not_object',
      '/lifecycle_hooks',
    ],
    [
      'an unknown hook event',
      { approval_mode: 'ask', lifecycle_hooks: { session_end: { tool: 't', timeout_ms: 1 } } },
      'hook_event_unknown',
      '/lifecycle_hooks/session_end',
    ],
    [
      'an envelope over 64 KiB',
      { approval_mode: 'ask', tool_names: ['x'.repeat(70_000)] },
      'envelope_too_large',
      '',
    ],
  ];

  it.each(cases)('refuses %s', (_name, input, code, pointer) => {
    expect(problemsOf(input)).toContainEqual({ code, pointer });
  });
});
