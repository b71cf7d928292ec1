import type { AuditRecord } from '@airlock/sdk';
import { describe, expect, it } from 'vitest';
import {
  deciderWords,
  detailWords,
  filterRecords,
  outcomeChoices,
  subjectWords,
} from './recent-view.js';

function record(extra: Partial<AuditRecord>): AuditRecord {
  return {
    seq: 1,
    at: 0,
    run_id: 'run_a',
    task_key: 't1',
    event: 'task.approved',
    decision: 'approved',
    decider: 'person',
    principal: 'member:cred_me',
    tool_name: 'bash',
    granted_by: null,
    layer: null,
    rule_indices: [],
    layers: [],
    detail: null,
    policy: null,
    ...extra,
  } as AuditRecord;
}

describe('the recent decisions list', () => {
  const records = [
    record({ seq: 1 }),
    record({ seq: 2, principal: 'member:cred_other', tool_name: 'deploy' }),
    record({ seq: 3, decision: 'denied', decider: 'rule', principal: 'policy', run_id: 'run_b' }),
  ];

  it('filters by run, tool, outcome and person, newest first', () => {
    const any = { run: '', tool: '', outcome: '', mine: false };
    expect(filterRecords(records, any, null).map((r) => r.seq)).toEqual([3, 2, 1]);
    expect(filterRecords(records, { ...any, run: 'run_b' }, null).map((r) => r.seq)).toEqual([3]);
    expect(filterRecords(records, { ...any, tool: 'DEP' }, null).map((r) => r.seq)).toEqual([2]);
    expect(filterRecords(records, { ...any, outcome: 'approved' }, null).map((r) => r.seq)).toEqual(
      [2, 1],
    );
    expect(
      filterRecords(records, { ...any, mine: true }, 'member:cred_me').map((r) => r.seq),
    ).toEqual([1]);
    expect(filterRecords(records, { ...any, mine: true }, null)).toEqual([]);
  });

  it('offers every outcome the day holds in its Outcome filter, the known ones first', () => {
    const day = [
      record({ decision: 'edited' }),
      record({ decision: 'approval_added' }),
      record({ decision: 'ran_unstaged', decider: 'hook' }),
      record({ decision: 'approved' }),
      record({ decision: 'edited' }),
    ];
    const choices = outcomeChoices(day);
    for (const word of ['edited', 'approval_added', 'ran_unstaged', 'approved', 'denied']) {
      expect(choices.filter((choice) => choice === word)).toEqual([word]);
    }
    expect(choices.indexOf('approved')).toBeLessThan(choices.indexOf('ran_unstaged'));
  });

  it('says who decided in words', () => {
    expect(deciderWords(record({}))).toBe('member:cred_me');
    expect(
      deciderWords(record({}), (principal) => (principal === 'member:cred_me' ? 'Ana Lima' : null)),
    ).toBe('Ana Lima');
    expect(
      deciderWords(record({ decider: 'rule', rule_indices: [0, 2], layer: 'approval_rules' })),
    ).toBe('rule #0, #2 (approval rules)');
    expect(deciderWords(record({ decider: 'rule', layer: 'approval_rules' }))).toBe('the mode');
    expect(deciderWords(record({ decider: 'rule', layer: 'action_contract' }))).toBe(
      'the action contract',
    );
    expect(deciderWords(record({ decider: 'clock' }))).toBe('the park clock');
  });
});

describe('changes of policy in the list', () => {
  const remembered = record({
    seq: 4,
    event: 'policy.changed',
    decision: 'rule_remembered',
    tool_name: null,
    detail: 'remembered an allow rule',
    policy: {
      change: 'rule_remembered',
      scope: 'conversation',
      owner_id: 'conv_1',
      before_digest: 'sha256:aaaaaaaaaaaaaaaaaaaaaaaa',
      after_digest: 'sha256:bbbbbbbbbbbbbbbbbbbbbbbb',
      rule: { verdict: 'allow', tool_names: ['bash'] },
    },
  });

  it('names the document, the digests and the rule saved, and filters by outcome', () => {
    expect(subjectWords(remembered)).toBe('conversation conv_1');
    expect(detailWords(remembered)).toContain('sha256:aaaaaaaaaaaa… → sha256:bbbbbbbbbbbb…');
    expect(detailWords(remembered)).toContain('"tool_names":["bash"]');
    const any = { run: '', tool: '', outcome: 'rule_remembered', mine: false };
    expect(filterRecords([record({}), remembered], any, null)).toEqual([remembered]);
    expect(filterRecords([remembered], { ...any, outcome: '', tool: 'conv_1' }, null)).toEqual([
      remembered,
    ]);
  });

  it('shows a credential change by its detail, without digests it has none of', () => {
    const revoked = record({
      seq: 5,
      event: 'policy.changed',
      decision: 'credential_revoked',
      tool_name: null,
      detail: 'revoked member credential cred_x',
      policy: {
        change: 'credential_revoked',
        scope: 'credential',
        owner_id: 'cred_x',
        before_digest: null,
        after_digest: null,
      },
    });
    expect(subjectWords(revoked)).toBe('credential cred_x');
    expect(detailWords(revoked)).toBe('revoked member credential cred_x');
  });
});
