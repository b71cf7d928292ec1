import { describe, expect, it } from 'vitest';
import type { PendingEvent } from '../store/store.js';
import { retryDelayMs } from './backoff.js';
import { parseNotificationsConfig } from './config.js';
import { channelWants, notifyingEventOf } from './routing.js';

const SECRET = `whsec_${Buffer.alloc(32, 3).toString('base64')}`;

function channel(when?: unknown) {
  const config = parseNotificationsConfig({
    channels: [
      {
        name: 'c',
        kind: 'webhook',
        workspace: 'ws',
        url: 'https://x',
        secrets: [SECRET],
        ...(when ? { when } : {}),
      },
    ],
  });
  return config.channels[0]!;
}

const parked = {
  event: 'task.parked' as const,
  application: 'app_1',
  tool: 'bash',
  actionTags: ['delete', 'destructive'],
  ruleSet: 'Supervised',
};

describe('notification routing', () => {
  it('maps the events that need a person, and no other', () => {
    // Only the type (and a hold's reason) matter here: the rest of each event's data is left out.
    const base = { workspace_id: 'ws', run_id: 'r' };
    const of = (event: object) => notifyingEventOf(event as PendingEvent);
    expect(of({ ...base, type: 'task.parked' })).toBe('task.parked');
    expect(of({ ...base, type: 'run.failed' })).toBe('run.failed');
    expect(
      of({
        ...base,
        type: 'run.attention_required',
        data: { reason: 'failure_hold' },
      }),
    ).toBe('run.held');
    expect(
      of({
        ...base,
        type: 'run.attention_required',
        data: { reason: 'approval_required' },
      }),
    ).toBeNull();
    expect(of({ ...base, type: 'task.granted' })).toBeNull();
  });

  it('needs every key of `when` to match, any one value within a key', () => {
    expect(channelWants(channel(), parked)).toBe(true);
    expect(channelWants(channel({ action_tags: ['destructive', 'publish'] }), parked)).toBe(true);
    expect(channelWants(channel({ action_tags: ['publish'] }), parked)).toBe(false);
    expect(channelWants(channel({ events: ['task.asked'] }), parked)).toBe(false);
    expect(
      channelWants(channel({ applications: ['app_1'], rule_sets: ['Supervised'] }), parked),
    ).toBe(true);
    expect(
      channelWants(channel({ applications: ['app_1'], rule_sets: ['Autonomous'] }), parked),
    ).toBe(false);
    expect(channelWants(channel({ rule_sets: ['Supervised'] }), { ...parked, ruleSet: null })).toBe(
      false,
    );
  });

  it('spaces retries exponentially, capped, with jitter in the upper half of each step', () => {
    const backoff = { baseMs: 1000, capMs: 8000 };
    expect(retryDelayMs(1, backoff, () => 0)).toBe(500);
    expect(retryDelayMs(1, backoff, () => 1)).toBe(1000);
    expect(retryDelayMs(3, backoff, () => 1)).toBe(4000);
    expect(retryDelayMs(10, backoff, () => 1)).toBe(8000);
    expect(retryDelayMs(10, backoff, () => 0)).toBe(4000);
  });
});
