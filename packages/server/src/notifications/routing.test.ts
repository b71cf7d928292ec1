import { describe, expect, it } from 'vitest';
import type { PendingEvent } from '../store/store.js';
import { DEFAULT_BACKOFF, DEFAULT_MAX_ATTEMPTS, retryDelayMs } from './backoff.js';
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
  tools: ['bash'],
  actionTags: ['delete', 'destructive'],
  ruleSet: 'Supervised',
};

/** Reads the routing of an event built in a test with only the fields routing looks at. */
const notifying = (event: object) => notifyingEventOf(event as PendingEvent);

describe('notification routing', () => {
  it('maps the events that need a person, and no other', () => {
    const base = { workspace_id: 'ws', run_id: 'r' };
    expect(notifying({ ...base, type: 'task.parked' })).toBe('task.parked');
    expect(notifying({ ...base, type: 'run.failed' })).toBe('run.failed');
    expect(
      notifying({
        ...base,
        type: 'run.attention_required',
        data: { reason: 'failure_hold' },
      }),
    ).toBe('run.held');
    expect(
      notifying({
        ...base,
        type: 'run.attention_required',
        data: { reason: 'approval_required' },
      }),
    ).toBeNull();
    expect(notifying({ ...base, type: 'task.granted' })).toBeNull();
  });

  it('notifies a call that waits for people again at a new version as a park', () => {
    const base = { workspace_id: 'ws', run_id: 'r', task_key: 't1' };
    const of = (type: string, data: object) => notifying({ ...base, type, data });
    expect(of('task.edited', { outcome: 'parked' })).toBe('task.parked');
    expect(of('task.edited', { outcome: 'granted' })).toBeNull();
    expect(of('task.retried', { state: 'needs_approval', approvals_required: 2 })).toBe(
      'task.parked',
    );
    expect(of('task.retried', { state: 'runnable' })).toBeNull();
    expect(of('task.retried', { state: 'awaiting_input' })).toBe('task.asked');
    expect(of('task.readdressed', { state: 'needs_approval' })).toBe('task.parked');
    expect(of('task.readdressed', { state: 'awaiting_input' })).toBeNull();
    expect(of('task.approval_added', { received: 1, required: 2 })).toBeNull();
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
    // A call named through an alias matches on the model's name and on the resolved one.
    const aliased = { ...parked, tools: ['sh', 'bash'] };
    expect(channelWants(channel({ tools: ['bash'] }), aliased)).toBe(true);
    expect(channelWants(channel({ tools: ['sh'] }), aliased)).toBe(true);
    expect(channelWants(channel({ tools: ['python'] }), aliased)).toBe(false);
  });

  it('spaces retries exponentially, capped, with jitter in the upper half of each step', () => {
    const backoff = { baseMs: 1000, capMs: 8000 };
    expect(retryDelayMs(1, backoff, () => 0)).toBe(500);
    expect(retryDelayMs(1, backoff, () => 1)).toBe(1000);
    expect(retryDelayMs(3, backoff, () => 1)).toBe(4000);
    expect(retryDelayMs(10, backoff, () => 1)).toBe(8000);
    expect(retryDelayMs(10, backoff, () => 0)).toBe(4000);
  });

  it('with the defaults, keeps retrying a receiver that is down for an hour before the dead letter', () => {
    // The shortest waits jitter can draw between the first attempt and the last.
    let window = 0;
    for (let attempts = 1; attempts < DEFAULT_MAX_ATTEMPTS; attempts += 1) {
      window += retryDelayMs(attempts, DEFAULT_BACKOFF, () => 0);
    }
    expect(window).toBeGreaterThan(60 * 60 * 1000);
    // And gives up well within a park's 24 hours, so a dead letter still tells someone in time.
    let longest = 0;
    for (let attempts = 1; attempts < DEFAULT_MAX_ATTEMPTS; attempts += 1) {
      longest += retryDelayMs(attempts, DEFAULT_BACKOFF, () => 1);
    }
    expect(longest).toBeLessThan(6 * 60 * 60 * 1000);
  });
});
