import { describe, expect, it } from 'vitest';
import { type DecisionContext, toDecision } from './decisions.js';
import type { TaskView } from './views.js';

const context = { operations: {}, workspaceId: 'ws_1' } as unknown as DecisionContext;

function task(fields: Partial<TaskView> & Record<string, unknown>): TaskView {
  return {
    key: 't1',
    run_id: 'run_1',
    round: 0,
    origin: 'model',
    kind: 'tool',
    state: 'needs_approval',
    tool_call_id: null,
    tool_name: 'bash',
    tool_input: { command: 'rm -rf ./build' },
    effect_profile: null,
    decision: null,
    on_failure: 'continue',
    addressee: null,
    deadline_at: null,
    lease_until: null,
    attempts: 0,
    result: null,
    error: null,
    decided_by: null,
    created_at: 0,
    updated_at: 0,
    ...fields,
  } as TaskView;
}

describe("an Approval's effect profile", () => {
  it('is the profile the kernel froze on the park, as it is (no second reading on the client)', () => {
    const frozen: NonNullable<TaskView['effect_profile']> = {
      tool_name: 'bash',
      tool_input: { command: 'curl https://x.dev' },
      mode: 'ask',
      approval_mode: 'ask',
      origin: 'model',
      matched_rules: [
        {
          index: 0,
          verdict: 'ask',
          text: 'curl https://x.dev',
          rule: { tool: 'bash', verdict: 'ask' },
        },
      ],
      action_tags: ['network'],
      targets: ['https://x.dev'],
      decided_by_layer: 'action_contract',
      layers: [
        {
          layer: 'action_contract',
          verdict: 'ask',
          rule: { index: 0, list: 'requires_user', text: 'action:network', contract_version: 3 },
          detail: 'action contract v3 requires a person',
          reminders: [],
        },
      ],
    };
    const decision = toDecision(context, task({ effect_profile: frozen }));
    if (!decision.isApproval()) throw new Error('expected an approval');
    expect(decision.effect_profile).toBe(frozen);
  });

  it('is null on a row that carries none, rather than a guess', () => {
    const decision = toDecision(
      context,
      task({ tool_input: { command: 'rm -rf ./build' }, effect_profile: null }),
    );
    if (!decision.isApproval()) throw new Error('expected an approval');
    expect(decision.effect_profile).toBeNull();
  });
});

describe('toDecision', () => {
  it('makes a parked row an Approval and narrows with isApproval', () => {
    const decision = toDecision(context, task({}));
    expect(decision.isApproval()).toBe(true);
    expect(decision.isAsk()).toBe(false);
    expect(decision).toMatchObject({ kind: 'approval', run_id: 'run_1', task_key: 't1' });
  });

  it('makes a question row a Question, from its view fields or its input', () => {
    const fromView = toDecision(
      context,
      task({
        kind: 'ask',
        state: 'awaiting_input',
        tool_name: 'ask',
        prompt: 'Which?',
        options: ['a', 'b'],
        multi: true,
      }),
    );
    const fromInput = toDecision(
      context,
      task({
        kind: 'ask',
        state: 'awaiting_input',
        tool_name: 'ask',
        tool_input: { prompt: 'When?', options: ['Now'] },
      }),
    );
    expect(fromView.isAsk() && [fromView.prompt, fromView.options, fromView.multi]).toEqual([
      'Which?',
      ['a', 'b'],
      true,
    ]);
    expect(fromInput.isAsk() && [fromInput.prompt, fromInput.options, fromInput.multi]).toEqual([
      'When?',
      ['Now'],
      false,
    ]);
  });
});
