import type { FeedEvent } from '@airlock/sdk';
import { describe, expect, it } from 'vitest';
import { previewOf, progressOf, unreachableOf } from './workspace-feed.js';

const parked = (data: unknown): FeedEvent =>
  ({
    seq: 7,
    type: 'task.parked',
    run_id: 'run_1',
    task_key: 't2',
    principal: 'kernel',
    created_at: 2_000,
    data,
  }) as FeedEvent;

describe('previewOf', () => {
  it('paints a park from its creation and the input its park froze', () => {
    const event = parked({
      state: 'needs_approval',
      effect_profile: { tool_name: 'bash', tool_input: { command: 'rm -rf ./build' } },
    });
    expect(previewOf(event, { round: 3, tool_name: 'bash', created_at: 1_990 })).toEqual({
      run_id: 'run_1',
      task_key: 't2',
      round: 3,
      created_at: 1_990,
      kind: 'approval',
      summary: 'bash rm -rf ./build',
      progress: null,
      unreachable: false,
    });
  });

  it('shows the quorum the approval policy asked when the call parked', () => {
    const data = (approvals_required?: number) => ({
      state: 'needs_approval',
      effect_profile: { tool_name: 'bash', tool_input: { command: 'rm -rf ./build' } },
      ...(approvals_required === undefined ? {} : { approvals_required }),
    });
    const created = { round: 1, tool_name: 'bash', created_at: 1 };
    expect(previewOf(parked(data(2)), created)?.progress).toBe('0 of 2 approvals');
    expect(previewOf(parked(data(1)), created)?.progress).toBeNull();
    // An older kernel's park says nothing of its quorum: one approval is assumed until it is read.
    expect(previewOf(parked(data()), created)?.progress).toBeNull();
  });

  it('says too few approvers when the park says the quorum cannot be met', () => {
    const data = (approvals_reachable?: boolean) => ({
      state: 'needs_approval',
      effect_profile: { tool_name: 'bash', tool_input: { command: 'rm -rf ./build' } },
      approvals_required: 2,
      ...(approvals_reachable === undefined ? {} : { approvals_reachable }),
    });
    const created = { round: 1, tool_name: 'bash', created_at: 1 };
    expect(previewOf(parked(data(false)), created)).toMatchObject({
      progress: '0 of 2 approvals',
      unreachable: true,
    });
    expect(previewOf(parked(data(true)), created)?.unreachable).toBe(false);
    // An older kernel's park, or one no policy rule covers, says nothing of it.
    expect(previewOf(parked(data()), created)?.unreachable).toBe(false);
  });

  it('previews nothing without the row’s creation or a frozen input', () => {
    const event = parked({ state: 'needs_approval', effect_profile: { tool_name: 'bash' } });
    expect(previewOf(event, { round: 1, tool_name: 'bash', created_at: 1 })).toBeNull();
    expect(previewOf(parked({ effect_profile: { tool_input: {} } }), undefined)).toBeNull();
  });
});

describe('progressOf', () => {
  it('counts an approval toward a quorum from its event alone', () => {
    const added = (data: unknown) =>
      ({ ...parked(data), type: 'task.approval_added' }) as FeedEvent;
    const one = { state: 'needs_approval', decided_by: 'member:cred_a', received: 1, required: 2 };
    expect(progressOf(added(one))).toBe('1 of 2 approvals');
    expect(progressOf(added({ state: 'needs_approval' }))).toBeNull();
  });

  it('hears from an approval whether too few members can still complete the quorum', () => {
    const added = (data: unknown) =>
      ({ ...parked(data), type: 'task.approval_added' }) as FeedEvent;
    const one = { state: 'needs_approval', received: 1, required: 2 };
    expect(unreachableOf(added({ ...one, reachable: false }))).toBe(true);
    expect(unreachableOf(added({ ...one, reachable: true }))).toBe(false);
    // An older kernel's event does not say: the row keeps what it showed.
    expect(unreachableOf(added(one))).toBeNull();
  });
});
