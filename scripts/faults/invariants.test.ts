import { describe, expect, it } from 'vitest';
import { type Snapshot, violations } from './invariants.js';
import { type Ledger, newLedger } from './workload.js';

// One run, one parked row approved and committed once: what a kernel that held leaves behind.
function clean(): { state: Snapshot; ledger: Ledger } {
  const events = [
    { seq: 1, run_id: 'r', task_key: null, type: 'run.created' },
    { seq: 2, run_id: 'r', task_key: 't1', type: 'task.parked' },
    { seq: 3, run_id: 'r', task_key: 't1', type: 'task.approved' },
    { seq: 4, run_id: 'r', task_key: 't1', type: 'task.claimed' },
    { seq: 5, run_id: 'r', task_key: 't1', type: 'task.succeeded' },
    { seq: 6, run_id: 'r', task_key: null, type: 'run.completed' },
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
      feed: [...events],
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
    twice.state.runs[0]!.events.push({ seq: 7, run_id: 'r', task_key: 't1', type: 'task.denied' });
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
});
