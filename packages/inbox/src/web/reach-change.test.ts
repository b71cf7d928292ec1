import type { Decision } from '@airlock/sdk';
import { describe, expect, it } from 'vitest';
import { ReachRereads } from './reach-change.js';

/** An approval row as the waiting list's page reads it. */
function approval(taskKey: string, reachable: boolean): Decision {
  return {
    run_id: 'run_1',
    task_key: taskKey,
    approvals: { required: 2, received: [], reachable },
    isApproval: () => true,
  } as unknown as Decision;
}

describe('ReachRereads', () => {
  it('reads once per burst of changes (one more read after it), and says each row it holds', async () => {
    const reads: ((page: { decisions: Decision[] }) => void)[] = [];
    const shown: string[] = [];
    const opened: string[] = [];
    const rereads = new ReachRereads({
      firstPage: () => new Promise((answer) => reads.push(answer)),
      show: (key, progress, unreachable) => {
        shown.push(`${key} ${progress} ${unreachable}`);
        return key !== 'run_1/t9';
      },
      forget: () => {},
      openKey: () => 'run_1/t1',
      showOpen: (decision) => opened.push(decision.task_key),
      fail: (error) => {
        throw error;
      },
    });
    rereads.changed('credential_revoked');
    rereads.changed('approval_policy_replaced');
    rereads.changed('credential_created');
    // A change that cannot change a quorum reads nothing.
    rereads.changed('retention_policy_replaced');
    expect(reads).toHaveLength(1);
    reads[0]?.({ decisions: [approval('t1', false), approval('t9', false)] });
    await expect.poll(() => reads.length).toBe(2);
    reads[1]?.({ decisions: [approval('t1', true)] });
    await expect.poll(() => shown.length).toBe(3);
    expect(shown).toEqual([
      'run_1/t1 0 of 2 approvals true',
      'run_1/t9 0 of 2 approvals true',
      'run_1/t1 0 of 2 approvals false',
    ]);
    expect(opened).toEqual(['t1', 't1']);
    rereads.changed('credential_revoked');
    await expect.poll(() => reads.length).toBe(3);
  });

  it('does not draw over a row whose own event came while the read was on its way', async () => {
    const reads: ((page: { decisions: Decision[] }) => void)[] = [];
    const shown: string[] = [];
    const opened: string[] = [];
    const rereads = new ReachRereads({
      firstPage: () => new Promise((answer) => reads.push(answer)),
      show: (key, progress, unreachable) => {
        shown.push(`${key} ${progress} ${unreachable}`);
        return true;
      },
      forget: () => {},
      openKey: () => 'run_1/t2',
      showOpen: (decision) => opened.push(decision.task_key),
      fail: (error) => {
        throw error;
      },
    });
    rereads.changed('credential_revoked');
    // An approval of t2 arrives (its row now says 1 of 2) before the read answers with 0 of 2.
    rereads.rowChanged('run_1/t2');
    reads[0]?.({ decisions: [approval('t1', false), approval('t2', false)] });
    await expect.poll(() => shown.length).toBe(1);
    expect(shown).toEqual(['run_1/t1 0 of 2 approvals true']);
    expect(opened).toEqual([]);
    // The next read, begun after that event, draws it again.
    rereads.changed('credential_revoked');
    await expect.poll(() => reads.length).toBe(2);
    reads[1]?.({ decisions: [approval('t2', false)] });
    await expect.poll(() => shown.length).toBe(2);
    expect(opened).toEqual(['t2']);
  });
});
