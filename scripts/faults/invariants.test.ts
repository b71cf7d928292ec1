import { describe, expect, it } from 'vitest';
import { type Snapshot, violations } from './invariants.js';
import { type Ledger, newLedger } from './workload.js';

// The workspace's setup on the record (no run), then one run, one parked row approved and
// committed once: what a kernel that held leaves behind.
function clean(): { state: Snapshot; ledger: Ledger } {
  const setup = [
    { seq: 1, run_id: '', task_key: null, type: 'policy.changed' },
    { seq: 2, run_id: '', task_key: null, type: 'policy.changed' },
  ];
  const events = [
    { seq: 3, run_id: 'r', task_key: null, type: 'run.created' },
    { seq: 4, run_id: 'r', task_key: 't1', type: 'task.parked' },
    { seq: 5, run_id: 'r', task_key: 't1', type: 'task.approved' },
    { seq: 6, run_id: 'r', task_key: 't1', type: 'task.claimed' },
    { seq: 7, run_id: 'r', task_key: 't1', type: 'task.succeeded' },
    { seq: 8, run_id: 'r', task_key: null, type: 'run.completed' },
  ];
  const ledger = newLedger();
  ledger.created.add('r');
  ledger.approved.set('r/t1', 1);
  ledger.claims.set('r/t1', 1);
  ledger.commits.set('r/t1', 1);
  return {
    state: {
      runs: [
        {
          run: { id: 'r', state: 'completed' },
          tasks: [{ key: 't1', state: 'succeeded' }],
          events,
        },
      ],
      feed: [...setup, ...events],
    },
    ledger,
  };
}

describe('the fault test invariants', () => {
  it('find nothing wrong in a run that held', () => {
    const { state, ledger } = clean();
    expect(violations(state, ledger)).toEqual([]);
  });

  it('catch a lost approval, a double decision, a double execution, a stuck row and a feed gap', () => {
    const lost = clean();
    lost.state.runs[0]!.events.splice(2, 1);
    expect(violations(lost.state, lost.ledger).join('\n')).toMatch(/missing from the event log/);

    const twice = clean();
    twice.state.runs[0]!.events.push({ seq: 9, run_id: 'r', task_key: 't1', type: 'task.denied' });
    expect(violations(twice.state, twice.ledger).join('\n')).toMatch(/2 decisions applied/);

    const ranTwice = clean();
    ranTwice.ledger.commits.set('r/t1', 2);
    expect(violations(ranTwice.state, ranTwice.ledger).join('\n')).toMatch(/executed twice/);

    const stuck = clean();
    stuck.state.runs[0]!.tasks[0]!.state = 'claimed';
    stuck.state.runs[0]!.run.state = 'running';
    const stuckFound = violations(stuck.state, stuck.ledger).join('\n');
    expect(stuckFound).toMatch(/rests at claimed/);
    expect(stuckFound).toMatch(/still running/);

    const gap = clean();
    gap.state.feed.splice(3, 1);
    expect(violations(gap.state, gap.ledger).join('\n')).toMatch(/not gap-free/);
  });

  it('catch an event of a run the feed carried but its log lacks, and a stray event of no run', () => {
    const unlogged = clean();
    unlogged.state.runs[0]!.events.splice(5, 1);
    expect(violations(unlogged.state, unlogged.ledger).join('\n')).toMatch(
      /not in its run's log: 8 run.completed/,
    );

    const stray = clean();
    stray.state.feed[1]!.type = 'task.parked';
    expect(violations(stray.state, stray.ledger).join('\n')).toMatch(
      /events of no run other than policy changes: 2 task.parked/,
    );
  });
});
