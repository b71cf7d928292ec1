import { describe, expect, it } from 'vitest';
import { validateProfileConfiguration } from '../rules/validate-profile.js';
import { validateActionContract } from './validate-contract.js';

describe('validateActionContract', () => {
  it('parses every list in precedence order, prefixes and tags case-insensitively', () => {
    const result = validateActionContract({
      contract_version: 2,
      authorization: {
        allowed: ['Action:READ'],
        requires_user: ['tool:Deploy'],
        forbidden: ['action:write_workspace', 'ACTION:external_side_effect'],
      },
      must_and_must_not: { must_not: ['command-prefix:git push'] },
      constraints: 'do not install locally',
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value.enforcement).toBe('balanced');
    expect(result.value.constraints).toEqual(['do not install locally']);
    expect(result.value.rules.map((rule) => [rule.list, rule.form, rule.value])).toEqual([
      ['forbidden', 'action', 'write'],
      ['forbidden', 'action', 'external'],
      ['must_not', 'command-prefix', 'git push'],
      ['requires_user', 'tool', 'deploy'],
      ['allowed', 'action', 'read'],
    ]);
  });

  it('names the supported form of a near-miss tag and reports every problem', () => {
    const result = validateActionContract({
      contract_version: -1,
      enforcement: 'strict',
      authorization: { forbidden: ['action:install-local', 'action:everything', 7, 'rm -rf'] },
      must_and_must_not: { must: ['x'] },
      constraints: [''],
      extra: true,
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems.map((problem) => [problem.code, problem.pointer])).toEqual([
      ['contract_key_unknown', '/extra'],
      ['contract_version_invalid', '/contract_version'],
      ['contract_enforcement_invalid', '/enforcement'],
      ['contract_key_unknown', '/must_and_must_not/must'],
      ['contract_action_tag_unknown', '/authorization/forbidden/0'],
      ['contract_action_tag_unknown', '/authorization/forbidden/1'],
      ['contract_rule_invalid', '/authorization/forbidden/2'],
      ['contract_rule_invalid', '/authorization/forbidden/3'],
      ['contract_constraints_invalid', '/constraints/0'],
    ]);
    expect(result.problems[4]!.message).toContain('use the documented form action:install_local');
    expect(result.problems[5]!.message).toContain('action:destructive');
  });

  it('refuses a tag every object answers (constructor, __proto__) as an unknown tag', () => {
    const result = validateActionContract({
      contract_version: 1,
      authorization: { forbidden: ['action:constructor', 'action:__proto__', 'action:toString'] },
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems.map((problem) => [problem.code, problem.pointer])).toEqual([
      ['contract_action_tag_unknown', '/authorization/forbidden/0'],
      ['contract_action_tag_unknown', '/authorization/forbidden/1'],
      ['contract_action_tag_unknown', '/authorization/forbidden/2'],
    ]);
  });

  it('is a profile configuration key, checked with pointers under /action_contract', () => {
    const result = validateProfileConfiguration({
      approval_mode: 'bypass',
      action_contract: { contract_version: 1, authorization: { allowed: 'action:read' } },
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems).toEqual([
      expect.objectContaining({
        code: 'contract_list_invalid',
        pointer: '/action_contract/authorization/allowed',
      }),
    ]);
  });
});
