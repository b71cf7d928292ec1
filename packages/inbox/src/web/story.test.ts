import { describe, expect, it } from 'vitest';
import { decisionOf, modelReadText, type StoryEvent, stateWords } from './story.js';

function event(type: string, data: unknown, principal: string | null = null): StoryEvent {
  return { seq: 7, type, task_key: 't1', principal, created_at: 1000, data };
}

describe('decisionOf', () => {
  it('says which rule and layer granted, parked or refused a call', () => {
    expect(
      decisionOf(event('task.granted', { granted_by: 'rule', matched: [0, 2] })),
    ).toMatchObject({
      outcome: 'granted',
      decider: 'rule',
      by: 'rule #0, #2 (approval rules)',
    });
    expect(decisionOf(event('task.granted', { granted_by: 'mode' }))).toMatchObject({
      decider: 'mode',
    });
    expect(
      decisionOf(
        event('task.denied', {
          matched: [1],
          layer: 'action_contract',
          error: { code: 'approval_denied', detail: 'no deletes' },
        }),
      ),
    ).toMatchObject({
      outcome: 'denied',
      decider: 'rule',
      by: 'rule #1 (action contract)',
      detail: 'no deletes',
    });
    expect(
      decisionOf(
        event('task.parked', {
          effect_profile: { mode: 'rules', matched_rules: [{ index: 3, verdict: 'ask' }] },
        }),
      ),
    ).toMatchObject({ outcome: 'parked', by: 'rule #3 (approval rules)' });
    expect(
      decisionOf(event('task.parked', { effect_profile: { mode: 'ask', matched_rules: [] } })),
    ).toMatchObject({ decider: 'mode', by: 'mode ask' });
    expect(
      decisionOf(
        event('task.parked', { effect_profile: { mode: 'bypass', decided_by_layer: 'rule_set' } }),
      ),
    ).toMatchObject({ decider: 'rule', by: 'the permission rule set' });
  });

  it('says how many approvals a park needs when the approval policy asks several', () => {
    const parked = (approvals?: number) =>
      decisionOf(
        event('task.parked', {
          effect_profile: { mode: 'ask', matched_rules: [] },
          ...(approvals === undefined ? {} : { approvals_required: approvals }),
        }),
      );
    expect(parked(2)).toMatchObject({ by: 'mode ask', detail: 'it needs 2 approvals' });
    expect(parked(1)?.detail).toBeNull();
    // An older kernel's park says nothing of its quorum.
    expect(parked()?.detail).toBeNull();
  });

  it('says a park’s quorum was out of reach when its event says so', () => {
    const parked = (approvals_required: number, approvals_reachable: boolean) =>
      decisionOf(
        event('task.parked', {
          effect_profile: { mode: 'ask', matched_rules: [] },
          approvals_required,
          approvals_reachable,
        }),
      );
    expect(parked(2, false)?.detail).toBe(
      'it needs 2 approvals; too few members could approve it when it parked',
    );
    expect(parked(1, false)?.detail).toBe('too few members could approve it when it parked');
    expect(parked(2, true)?.detail).toBe('it needs 2 approvals');
  });

  it("shows a member's name instead of the credential id when the kernel resolved one", () => {
    const named = {
      ...event('task.approved', { decided_by: 'member:cred_a' }, 'member:cred_a'),
      principal_name: 'Ana Lima',
    };
    expect(decisionOf(named)).toMatchObject({ decider: 'person', by: 'Ana Lima' });
  });

  it('tells where a person decided when it was outside the API (a Slack button, an email link)', () => {
    const nameOf = (principal: string) => (principal === 'member:cred_a' ? 'Ana Lima' : null);
    expect(
      decisionOf(
        event('task.approved', { decided_by: 'member:cred_a', via: 'Slack, ana' }, 'member:cred_a'),
        nameOf,
      ),
    ).toMatchObject({ decider: 'person', by: 'Ana Lima via Slack, ana' });
    expect(
      decisionOf(
        event(
          'task.denied',
          { decided_by: 'member:cred_b', via: 'email', error: { code: 'approval_denied' } },
          'member:cred_b',
        ),
      ),
    ).toMatchObject({ outcome: 'denied', by: 'member:cred_b via email' });
    expect(
      decisionOf(
        event(
          'task.approval_added',
          { decided_by: 'member:cred_a', received: 1, required: 2, via: 'Slack, ana' },
          'member:cred_a',
        ),
        nameOf,
      ),
    ).toMatchObject({ outcome: 'approval_added', by: 'Ana Lima via Slack, ana' });
  });

  it('tells each approval toward a quorum, and who made up the quorum, by name', () => {
    const names = new Map([
      ['member:cred_a', 'Ana Lima'],
      ['member:cred_b', 'Bo Chen'],
    ]);
    const nameOf = (principal: string) => names.get(principal) ?? null;
    expect(
      decisionOf(
        event(
          'task.approval_added',
          { decided_by: 'member:cred_a', received: 1, required: 2 },
          'member:cred_a',
        ),
        nameOf,
      ),
    ).toMatchObject({
      outcome: 'approval_added',
      decider: 'person',
      by: 'Ana Lima',
      detail: '1 of 2 approvals; it waits for more',
    });
    // A revoke left too few members to complete it: the event says so, and so does the story.
    expect(
      decisionOf(
        event(
          'task.approval_added',
          { decided_by: 'member:cred_a', received: 1, required: 2, reachable: false },
          'member:cred_a',
        ),
        nameOf,
      ),
    ).toMatchObject({
      outcome: 'approval_added',
      detail: '1 of 2 approvals, but too few members can approve it to complete it',
    });
    expect(
      decisionOf(
        event(
          'task.approved',
          { decided_by: 'member:cred_b', approved_by: ['member:cred_a', 'member:cred_b'] },
          'member:cred_b',
        ),
        nameOf,
      ),
    ).toMatchObject({
      outcome: 'approved',
      by: 'Bo Chen',
      detail: '2 of 2 approvals',
      names: ['Ana Lima', 'Bo Chen'],
    });
    // One approval is the whole quorum: nothing more to say.
    expect(
      decisionOf(
        event('task.approved', { decided_by: 'member:cred_x', approved_by: ['member:cred_x'] }),
      ),
    ).toMatchObject({ by: 'member:cred_x', detail: null });
  });

  it('tells what an edit changed, and when the approval stage grants the edit outright', () => {
    const edited = decisionOf(
      event(
        'task.edited',
        {
          decided_by: 'member:cred_a',
          previous_input: { command: 'rm -rf ./build' },
          tool_input: { command: 'rm -rf ./build/cache' },
          outcome: 'parked',
        },
        'member:cred_a',
      ),
      (principal) => (principal === 'member:cred_a' ? 'Ana Lima' : null),
    );
    expect(edited).toMatchObject({
      outcome: 'edited',
      decider: 'person',
      by: 'Ana Lima',
      detail: 'command "rm -rf ./build" → "rm -rf ./build/cache"',
    });
    expect(
      decisionOf(
        event('task.edited', {
          decided_by: 'member:cred_a',
          previous_input: { command: 'ls' },
          tool_input: { command: 'ls -la' },
          outcome: 'granted',
        }),
      )?.detail,
    ).toBe('command "ls" → "ls -la"; the approval stage grants the edited call');
  });

  it('names a person who denied by the name the view knows', () => {
    expect(
      decisionOf(
        event('task.denied', { decided_by: 'member:cred_b', error: { detail: 'no' } }),
        () => 'Bo Chen',
      ),
    ).toMatchObject({ decider: 'person', by: 'Bo Chen', detail: 'no' });
  });

  it('names the person who approved, denied or answered', () => {
    expect(decisionOf(event('task.approved', { decided_by: 'member:cred_a' }))).toMatchObject({
      outcome: 'approved',
      decider: 'person',
      by: 'member:cred_a',
    });
    expect(
      decisionOf(
        event('task.denied', {
          decided_by: 'member:cred_b',
          error: { code: 'approval_denied', detail: 'later' },
        }),
      ),
    ).toMatchObject({ decider: 'person', by: 'member:cred_b', detail: 'later' });
    expect(
      decisionOf(event('task.resolved', { decided_by: 'member:cred_c', outcome: 'failed' })),
    ).toMatchObject({ outcome: 'declined', by: 'member:cred_c' });
  });

  it('tells the park clock from a hook clock, and the kernel from a person', () => {
    expect(
      decisionOf(event('task.expired', { error: { code: 'approval_expired', detail: 'x' } })),
    ).toMatchObject({ decider: 'clock', by: 'the park clock' });
    expect(
      decisionOf(event('task.expired', { error: { code: 'hook_timed_out', detail: 'x' } })),
    ).toMatchObject({ decider: 'hook' });
    expect(decisionOf(event('task.canceled', {}, 'kernel'))).toMatchObject({ decider: 'kernel' });
    expect(decisionOf(event('task.canceled', {}, 'member:cred_d'))).toMatchObject({
      decider: 'person',
      by: 'member:cred_d',
    });
  });

  it('ignores events that decide nothing', () => {
    expect(decisionOf(event('task.claimed', {}))).toBeNull();
    expect(decisionOf({ ...event('task.granted', {}), task_key: null })).toBeNull();
  });
});

describe('what a person reads of a row', () => {
  it('words states and cuts what the model read', () => {
    expect(stateWords('needs_approval')).toBe('waiting for approval');
    expect(modelReadText({ result: 'done', error: null })).toBe('done');
    expect(modelReadText({ result: { content: 'ok' }, error: null })).toBe('ok');
    expect(modelReadText({ result: null, error: { code: 'approval_denied', detail: 'no' } })).toBe(
      'approval_denied: no',
    );
    expect(modelReadText({ result: 'x'.repeat(500), error: null }, 10)).toBe(`${'x'.repeat(10)}…`);
    expect(modelReadText({ result: null, error: null })).toBeNull();
  });
});
