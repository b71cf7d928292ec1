import { describe, expect, it } from 'vitest';
import type { PendingEvent } from '../store/store.js';
import { settledLine } from './message-settle.js';

const base = { workspace_id: 'ws_1', run_id: 'run_1', task_key: 't1' };
const names = new Map([['member:cred_a', 'Alice']]);

function line(event: Record<string, unknown>): string {
  return settledLine({ ...base, ...event } as PendingEvent, names);
}

describe('the line a settled Slack message ends with', () => {
  it('names who decided by their label, else their principal, and where when outside the API', () => {
    expect(line({ type: 'task.approved', data: { decided_by: 'member:cred_a' } })).toBe(
      'Approved by Alice',
    );
    expect(
      line({ type: 'task.denied', data: { decided_by: 'member:cred_b', via: 'Slack, bob' } }),
    ).toBe('Denied by member:cred_b via Slack, bob');
    expect(
      line({ type: 'task.approved', data: { decided_by: 'member:cred_a', via: 'email' } }),
    ).toBe('Approved by Alice via email');
  });

  it('says how a question ended, and an expiry, an edit and a cancel', () => {
    expect(
      line({ type: 'task.resolved', data: { decided_by: 'member:cred_a', outcome: 'succeeded' } }),
    ).toBe('Answered by Alice');
    expect(
      line({ type: 'task.resolved', data: { decided_by: 'member:cred_a', outcome: 'failed' } }),
    ).toBe('Declined by Alice');
    expect(line({ type: 'task.expired', data: {} })).toBe('Expired: nobody decided in time');
    expect(
      line({ type: 'task.edited', data: { decided_by: 'member:cred_a', outcome: 'parked' } }),
    ).toBe('Edited by Alice: the edited call waits in a new message');
    expect(line({ type: 'task.canceled', data: { decided_by: 'member:cred_a' } })).toBe(
      'Canceled by Alice',
    );
    expect(line({ type: 'task.canceled', data: { state: 'canceled' } })).toBe(
      'Canceled: the run ended or was stopped',
    );
  });
});
