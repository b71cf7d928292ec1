import { describe, expect, it } from 'vitest';
import { type DecisionContext, readEffectProfile, toDecision } from './decisions.js';
import type { TaskView } from './views.js';

const context = { trpc: {}, workspaceId: 'ws_1' } as unknown as DecisionContext;

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

describe('readEffectProfile', () => {
  it('reads the kernel profile with its rules, deriving action tags and targets', () => {
    const rule = { tool: 'bash', path: 'command', match: '*rm -rf*', verdict: 'ask' };
    const profile = readEffectProfile(
      task({
        effect_profile: {
          tool_name: 'bash',
          tool_input: { command: 'rm -rf ./build' },
          approval_mode: 'rules',
          origin: 'model',
          matched_rules: [{ index: 1, rule }],
          // An older kernel's profile shape: the reader must still make sense of it.
        } as unknown as TaskView['effect_profile'],
      }),
    );
    expect(profile).toEqual({
      tool_name: 'bash',
      tool_input: { command: 'rm -rf ./build' },
      mode: 'rules',
      origin: 'model',
      matched_rules: [{ index: 1, verdict: 'ask', rule, text: null }],
      action_tags: ['delete', 'destructive'],
      targets: ['build'],
      decided_by_layer: null,
      layers: [],
    });
  });

  it('carries the deciding layer and every layer, as core froze them', () => {
    const layers = [
      {
        layer: 'action_contract' as const,
        verdict: 'ask' as const,
        rule: {
          index: 0,
          list: 'requires_user' as const,
          text: 'action:delete',
          contract_version: 3,
        },
        detail: 'action contract v3 requires a person',
        reminders: [],
      },
    ];
    const profile = readEffectProfile(
      task({
        effect_profile: {
          tool_name: 'bash',
          tool_input: { command: 'rm x' },
          mode: 'bypass',
          matched_rules: [],
          action_tags: ['delete'],
          targets: ['x'],
          decided_by_layer: 'action_contract',
          layers,
        },
      }),
    );
    expect(profile.decided_by_layer).toBe('action_contract');
    expect(profile.layers).toEqual(layers);
  });

  it("keeps core's frozen profile as it is (tags, targets, the text each rule read)", () => {
    const profile = readEffectProfile(
      task({
        effect_profile: {
          tool_name: 'bash',
          tool_input: { command: 'curl https://x.dev' },
          mode: 'ask',
          matched_rules: [{ index: 0, verdict: 'ask', text: 'curl https://x.dev' }],
          action_tags: ['network'],
          targets: ['https://x.dev'],
        },
      }),
    );
    expect(profile).toMatchObject({
      mode: 'ask',
      origin: 'model',
      matched_rules: [{ index: 0, verdict: 'ask', rule: null, text: 'curl https://x.dev' }],
      action_tags: ['network'],
      targets: ['https://x.dev'],
    });
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
