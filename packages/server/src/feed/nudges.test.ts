import { describe, expect, it } from 'vitest';
import { claimedLater } from './nudges.js';

const event = (type: string, task_key: string | null, run_id = 'r1') => ({
  type,
  task_key,
  run_id,
});

describe('claimedLater', () => {
  it('marks the events of a row that a later event of the batch claims', () => {
    const batch = [
      event('task.created', 't1'),
      event('task.granted', 't1'),
      event('task.granted', 't2'),
      event('task.claimed', 't1'),
      event('run.round_started', null),
    ];
    expect([...claimedLater(batch)].sort()).toEqual([0, 1]);
  });

  it('keeps what follows the claim: a lease that expired is work again', () => {
    const batch = [
      event('task.granted', 't1'),
      event('task.claimed', 't1'),
      event('task.lease_expired', 't1'),
    ];
    expect([...claimedLater(batch)]).toEqual([0]);
  });

  it('tells rows of different runs apart', () => {
    const batch = [event('task.granted', 't1', 'r1'), event('task.claimed', 't1', 'r2')];
    expect(claimedLater(batch).size).toBe(0);
  });
});
