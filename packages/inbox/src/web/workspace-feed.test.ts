import type { FeedEvent } from '@airlock/sdk';
import { describe, expect, it } from 'vitest';
import { previewOf } from './workspace-feed.js';

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
    });
  });

  it('previews nothing without the row’s creation or a frozen input', () => {
    const event = parked({ state: 'needs_approval', effect_profile: { tool_name: 'bash' } });
    expect(previewOf(event, { round: 1, tool_name: 'bash', created_at: 1 })).toBeNull();
    expect(previewOf(parked({ effect_profile: { tool_input: {} } }), undefined)).toBeNull();
  });
});
