import { describe, expect, it } from 'vitest';
import {
  approvalRequirement,
  credentialIdOf,
  policyCredentialIds,
  validateApprovalPolicy,
} from './approval-policy.js';

const destructive = {
  toolName: 'bash',
  actionTags: ['delete', 'destructive'] as const,
  ruleSet: 'supervised',
  applicationId: 'app_1',
};

describe('validateApprovalPolicy', () => {
  it('accepts a full policy and the empty one', () => {
    expect(validateApprovalPolicy({}).ok).toBe(true);
    const policy = {
      groups: { leads: ['cred_a', 'member:cred_b'] },
      rules: [
        { actions: ['destructive'], approvers: ['group:leads'], required: 2 },
        { tool: 'deploy|release_*', rule_set: 'supervised', application: 'app_1' },
      ],
      no_self_approval: true,
    };
    expect(validateApprovalPolicy(policy)).toEqual({ ok: true, value: policy });
  });

  it('reports every problem with its pointer and a stable code', () => {
    const result = validateApprovalPolicy({
      groups: { 'Bad Name': [], leads: ['group:other', 42] },
      rules: [
        { tool: 'bash|', actions: ['explode'], approvers: ['group:ghosts'], required: 11, x: 1 },
        'not a rule',
      ],
      no_self_approval: 'yes',
      extra: true,
    });
    expect(result.ok).toBe(false);
    const found = result.ok ? [] : result.problems.map((p) => [p.code, p.pointer]);
    expect(found).toEqual(
      expect.arrayContaining([
        ['approval_policy_key_unknown', '/extra'],
        ['approval_group_invalid', '/groups/Bad Name'],
        ['approval_approver_unknown', '/groups/leads/0'],
        ['approval_approver_unknown', '/groups/leads/1'],
        ['approval_policy_key_unknown', '/rules/0/x'],
        ['approval_rule_invalid', '/rules/0/tool'],
        ['approval_rule_invalid', '/rules/0/actions'],
        ['approval_approver_unknown', '/rules/0/approvers/0'],
        ['approval_rule_invalid', '/rules/0/required'],
        ['approval_rule_invalid', '/rules/1'],
        ['approval_rule_invalid', '/no_self_approval'],
      ]),
    );
    expect(validateApprovalPolicy([]).ok).toBe(false);
  });

  it('refuses a rule that asks more approvals than the distinct members its approvers name', () => {
    const result = validateApprovalPolicy({
      groups: { leads: ['cred_a', 'member:cred_b'] },
      rules: [
        { tool: 'deploy', approvers: ['group:leads', 'cred_a', 'member:cred_b'], required: 3 },
        { tool: 'bash', approvers: ['group:leads'], required: 2 },
        { tool: 'curl', required: 5 },
      ],
    });
    expect(result.ok ? [] : result.problems.map((p) => [p.code, p.pointer])).toEqual([
      ['approval_quorum_unreachable', '/rules/0/required'],
    ]);
  });
});

describe('approvalRequirement', () => {
  const policy = {
    groups: { leads: ['cred_a', 'cred_b'] },
    rules: [
      { tool: 'deploy', approvers: ['cred_c'] },
      { actions: ['destructive' as const], approvers: ['group:leads', 'cred_a'], required: 2 },
    ],
    no_self_approval: true,
  };

  it('takes the first rule that covers the call, groups expanded once each', () => {
    expect(approvalRequirement(policy, destructive)).toEqual({
      rule_index: 1,
      required: 2,
      approvers: ['member:cred_a', 'member:cred_b'],
      no_self_approval: true,
    });
    expect(approvalRequirement(policy, { ...destructive, toolName: 'deploy' })).toMatchObject({
      rule_index: 0,
      required: 1,
      approvers: ['member:cred_c'],
    });
  });

  it('defaults to one approval by any member when nothing covers the call', () => {
    const read = { ...destructive, actionTags: ['read'] as const };
    expect(approvalRequirement(policy, read)).toEqual({
      rule_index: null,
      required: 1,
      approvers: null,
      no_self_approval: true,
    });
    expect(approvalRequirement(null, destructive).no_self_approval).toBe(false);
  });

  it('matches rule_set and application exactly', () => {
    const scoped = { rules: [{ rule_set: 'supervised', application: 'app_2', required: 3 }] };
    expect(approvalRequirement(scoped, destructive).rule_index).toBeNull();
    expect(approvalRequirement(scoped, { ...destructive, applicationId: 'app_2' }).required).toBe(
      3,
    );
  });

  it('names credentials either way', () => {
    expect(credentialIdOf('member:cred_x')).toBe('cred_x');
    expect(credentialIdOf('cred_x')).toBe('cred_x');
    expect(credentialIdOf('agent:cred_x')).toBeNull();
    expect(policyCredentialIds(policy).sort()).toEqual(['cred_a', 'cred_b', 'cred_c']);
  });
});
