import { describe, expect, it } from 'vitest';
import { EXECUTOR_CABLE_PATH, feedPathWorkspaceSegment, workspaceFeedPath } from './sockets.js';
import { CableMessageSchema, FeedMessageSchema, SUBSCRIPTION_CONTRACTS } from './subscriptions.js';

const event = {
  seq: 7,
  run_id: 'run_1',
  task_key: 't1',
  type: 'task.claimed',
  data: { state: 'claimed', lease_until: 5, attempt: 1 },
  principal: null,
  created_at: 0,
};

describe('the subscription contracts', () => {
  it('give the socket paths the server and the SDK use', () => {
    expect(workspaceFeedPath('ws 1')).toBe('/api/v1/workspaces/ws%201/feed');
    expect(feedPathWorkspaceSegment('/api/v1/workspaces/ws%201/feed')).toBe('ws%201');
    expect(feedPathWorkspaceSegment('/api/v1/workspaces//feed')).toBeNull();
    expect(feedPathWorkspaceSegment('/api/v1/workspaces/a/b/feed')).toBeNull();
    expect(feedPathWorkspaceSegment('/api/v1/workspaces/a/runs')).toBeNull();
    expect(EXECUTOR_CABLE_PATH).toBe(SUBSCRIPTION_CONTRACTS['executor.cable'].path);
  });

  it('declare what the sockets refuse: a parameter they do not read, and a run not there', () => {
    // The sockets answer 400 for a misspelt parameter; the contracts (and the OpenAPI extension) say so.
    expect(SUBSCRIPTION_CONTRACTS.feed.query.safeParse({ runid: 'r' }).success).toBe(false);
    expect(SUBSCRIPTION_CONTRACTS.feed.query.safeParse({ run_id: 'r', after: 3 }).success).toBe(
      true,
    );
    expect(SUBSCRIPTION_CONTRACTS['executor.cable'].query.safeParse({ run_id: 'r' }).success).toBe(
      false,
    );
    expect(SUBSCRIPTION_CONTRACTS.feed.errors).toEqual(expect.arrayContaining(['run_not_found']));
  });

  it('read every message the feed sends and refuse one that is not declared', () => {
    for (const message of [
      { type: 'ready', after: 0 },
      { type: 'event', event },
      { type: 'resync', code: 'feed_position_pruned', detail: 'pruned', after: 3 },
      { type: 'pong' },
    ]) {
      expect(FeedMessageSchema.safeParse(message).success, JSON.stringify(message)).toBe(true);
    }
    expect(
      FeedMessageSchema.safeParse({ type: 'event', event: { ...event, seq: 'x' } }).success,
    ).toBe(false);
    expect(FeedMessageSchema.safeParse({ type: 'work_available' }).success).toBe(false);
  });

  it('read a nudge on the cable, never a lifecycle event', () => {
    const nudge = { type: 'work_available', kind: 'tool', run_id: 'run_1', task_key: 't1', seq: 7 };
    expect(CableMessageSchema.safeParse(nudge).success).toBe(true);
    expect(CableMessageSchema.safeParse({ type: 'event', event }).success).toBe(false);
  });

  it('take the query each door reads', () => {
    expect(SUBSCRIPTION_CONTRACTS.feed.query.parse({ after: 12 }).after).toBe(12);
    // The upgrade reads the digits of `after=` itself: the schema never coerces text.
    expect(SUBSCRIPTION_CONTRACTS.feed.query.safeParse({ after: '12' }).success).toBe(false);
    expect(SUBSCRIPTION_CONTRACTS.feed.query.parse({ after: 'latest' }).after).toBe('latest');
    expect(SUBSCRIPTION_CONTRACTS.feed.query.safeParse({ after: '-1' }).success).toBe(false);
    expect(
      SUBSCRIPTION_CONTRACTS['runs.feed'].query.safeParse({ workspace_id: 'w', extra: 1 }).success,
    ).toBe(false);
  });
});
