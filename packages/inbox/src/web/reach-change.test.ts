import type { Decision } from '@airlock/sdk';
import { describe, expect, it } from 'vitest';
import { type ReachPage, ReachRereads } from './reach-change.js';

/** An approval row as the waiting list's page reads it. */
function approval(taskKey: string, reachable: boolean): Decision {
  return {
    run_id: 'run_1',
    task_key: taskKey,
    approvals: { required: 2, received: [], reachable },
    isApproval: () => true,
  } as unknown as Decision;
}

/** The waiting list's last page. */
const last = (decisions: Decision[]): ReachPage => ({ decisions, next_cursor: null });

describe('ReachRereads', () => {
  it('reads once per burst of changes (one more read after it), and says each row it holds', async () => {
    const reads: ((page: ReachPage) => void)[] = [];
    const shown: string[] = [];
    const opened: string[] = [];
    const rereads = new ReachRereads({
      page: () => new Promise((answer) => reads.push(answer)),
      generation: () => 0,
      loaded: () => true,
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
    reads[0]?.(last([approval('t1', false), approval('t9', false)]));
    await expect.poll(() => reads.length).toBe(2);
    reads[1]?.(last([approval('t1', true)]));
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
    const reads: ((page: ReachPage) => void)[] = [];
    const shown: string[] = [];
    const opened: string[] = [];
    const rereads = new ReachRereads({
      page: () => new Promise((answer) => reads.push(answer)),
      generation: () => 0,
      loaded: () => true,
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
    reads[0]?.(last([approval('t1', false), approval('t2', false)]));
    await expect.poll(() => shown.length).toBe(1);
    expect(shown).toEqual(['run_1/t1 0 of 2 approvals true']);
    expect(opened).toEqual([]);
    // The next read, begun after that event, draws it again.
    rereads.changed('credential_revoked');
    await expect.poll(() => reads.length).toBe(2);
    reads[1]?.(last([approval('t2', false)]));
    await expect.poll(() => shown.length).toBe(2);
    expect(opened).toEqual(['t2']);
  });

  it('reads on, a page at a time, until a page ends past the loaded rows', async () => {
    const asked: (string | undefined)[] = [];
    const shown: string[] = [];
    // t1..t250 wait; the list loaded t1..t130.
    const rows = Array.from({ length: 250 }, (_, i) => approval(`t${i + 1}`, false));
    const rereads = new ReachRereads({
      page: async (limit, cursor) => {
        asked.push(cursor);
        const from = cursor ? Number(cursor) : 0;
        const to = Math.min(rows.length, from + limit);
        return { decisions: rows.slice(from, to), next_cursor: to < rows.length ? `${to}` : null };
      },
      generation: () => 0,
      loaded: (decision) => Number(decision.task_key.slice(1)) <= 130,
      show: (key, progress, unreachable) => {
        shown.push(`${key} ${progress} ${unreachable}`);
        return Number(key.slice('run_1/t'.length)) <= 130;
      },
      forget: () => {},
      openKey: () => 'run_1/t120',
      showOpen: (decision) => shown.push(`open ${decision.task_key}`),
      fail: (error) => {
        throw error;
      },
    });
    rereads.changed('approval_policy_replaced');
    await expect.poll(() => shown.length).toBe(201);
    expect(asked).toEqual([undefined, '100']);
    expect(shown).toContain('run_1/t130 0 of 2 approvals true');
    expect(shown).toContain('open t120');
  });

  it('stops once the list is read afresh (another order), and reads the page after no other', async () => {
    const asked: (string | undefined)[] = [];
    let generation = 0;
    const rereads = new ReachRereads({
      page: async (_limit, cursor) => {
        asked.push(cursor);
        generation += 1;
        return { decisions: [approval('t1', false)], next_cursor: 'more' };
      },
      generation: () => generation,
      loaded: () => true,
      show: () => {
        throw new Error('a row of an older list is drawn');
      },
      forget: () => {},
      openKey: () => null,
      showOpen: () => {},
      fail: (error) => {
        throw error;
      },
    });
    rereads.changed('credential_revoked');
    await expect.poll(() => asked.length).toBe(1);
    rereads.changed('credential_revoked');
    // The second change reads again from the start: the first stopped after its first page.
    await expect.poll(() => asked.length).toBe(2);
    expect(asked).toEqual([undefined, undefined]);
  });
});
