import type { Attention } from '@airlock/core';
import type { RunTable } from '../../store/schema.js';
import type { Tx } from '../../store/store.js';
import { findTaskBySource } from '../../store/tasks.js';
import { stopSourceOf } from '../machines/run-state.js';
import { isTerminal } from '../machines/task-states.js';

/** "task t1" or "tasks t1, t2". */
function tasksNamed(keys: readonly string[]): string {
  return `${keys.length === 1 ? 'task' : 'tasks'} ${keys.join(', ')}`;
}

/**
 * The detail of a `run_busy` refusal of a hooked call, or of a gateway
 * client's round (`runs.calls`): what the turn waits for before it takes
 * another call. A failed row that holds the run for a
 * person; the turn's answer waiting on its stop hook, or on calls a person
 * has not decided, or on calls the agent has not reported; else a lifecycle
 * hook (`turn_start`, `pre_compact`) or a compaction under way.
 */
export async function runBusyDetail(tx: Tx, run: RunTable): Promise<string> {
  const attention = run.attention ? (JSON.parse(run.attention) as Attention[]) : [];
  const keysOf = (...reasons: Attention['reason'][]) =>
    attention.filter((a) => reasons.includes(a.reason)).flatMap((a) => a.blocked_task_keys);
  const held = keysOf('failure_hold');
  const waits: string[] = [];
  if (held.length > 0) {
    waits.push(
      `${tasksNamed(held)} failed and ${held.length === 1 ? 'holds' : 'hold'} the run for a person`,
    );
  }
  if (run.pending_answer !== null) {
    const stop = await findTaskBySource(tx, run.id, stopSourceOf(run));
    const waiting = keysOf('approval_required', 'awaiting_human');
    if (stop && !isTerminal(stop.state)) {
      waits.push(`the turn's answer waits on its stop hook (task ${stop.key})`);
    } else if (waiting.length > 0) {
      waits.push(
        `the turn's answer waits for ${tasksNamed(waiting)}, which a person has not decided`,
      );
    } else if (held.length === 0) {
      waits.push("the turn's answer waits for its calls to be reported");
    }
  } else if (held.length === 0) {
    waits.push('a lifecycle hook (turn_start, pre_compact) or a compaction is under way');
  }
  return `run ${run.id} takes no call now: ${waits.join('; ')}`;
}
