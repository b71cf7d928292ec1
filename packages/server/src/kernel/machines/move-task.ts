import type { EventData, EventType } from '@airlock/core';
import { AirlockError, LeaseLostError } from '../../errors.js';
import { LARGE_VALUE_CHARACTERS, nextTurn } from '../../event-loop-turn.js';
import type { PendingEvent } from '../../store/event-log.js';
import type { RunTable, TaskTable } from '../../store/schema.js';
import type { Tx } from '../../store/store.js';
import { insertTask, writeTaskMove } from '../../store/task-moves.js';
import { findTask } from '../../store/tasks.js';
import type { KernelContext } from '../context.js';
import { readAttentionAhead, settleRun } from './run-state.js';
import {
  checkMove,
  mayReach,
  type TaskEventOf,
  type TaskVerb,
  type ToState,
  verbRule,
} from './task-machine.js';
import type { TaskState } from './task-states.js';

/** The columns a move may set beside `state` (never `state` itself, never the row's identity). */
export type TaskChange = Partial<
  Omit<TaskTable, 'state' | 'workspace_id' | 'run_id' | 'key' | 'created_at' | 'updated_at'>
>;

/** What a move needs to know of the run: enough to apply the run guard. */
export type RunOfMove = Pick<RunTable, 'id' | 'workspace_id' | 'state'>;

/** One move of one row, as `moveTask` performs it. */
export interface TaskMove<V extends TaskVerb> {
  verb: V;
  run: RunOfMove;
  key: string;
  /** The state the row ends in (one of the verb's `to`; the row's own for a `same` verb). */
  to: ToState<V>;
  /** Narrows the verb's from-states to the row's current one (a guarded move read it first). */
  from?: TaskState;
  /** Other columns the move sets. */
  set?: TaskChange;
  /** Further equality conditions the row must meet (a claim's id). */
  match?: { claim_id?: string };
  /** A clock's move: the row's deadline (or its claim's lease) must have passed. */
  due?: 'deadline_at' | 'lease_until';
  /** The event; its data gains `state`. Null for a silent verb. */
  event: TaskEventOf<V> | null;
  principal: string | null;
  /** Settles the run after the move (the run must be the locked full row). */
  settle?: { ctx: KernelContext; run: RunTable };
}

function guardRun(verb: TaskVerb, run: RunOfMove): void {
  if (verbRule(verb).run === 'running' && run.state !== 'running') {
    throw new AirlockError(
      'run_not_running',
      `run ${run.id} is ${run.state}: ${verb} moves no row of a run that is no longer running`,
    );
  }
}

/** Why a conditional UPDATE matched nothing, as the verb's own refusal. */
async function refusal<V extends TaskVerb>(tx: Tx, move: TaskMove<V>): Promise<AirlockError> {
  const row = await findTask(tx, move.run.id, move.key);
  if (!row) return new AirlockError('task_not_found', `no task ${move.key} in run ${move.run.id}`);
  const refused = stateRefusal(move, row);
  const claimId = move.match?.claim_id;
  if (refused.code !== 'lease_lost' || claimId === undefined) return refused;
  return new LeaseLostError(refused.detail, {
    task_state: row.state,
    // Only a commit with the claim leaves its id on a succeeded or failed row: a lapse, a retry
    // and a hook's timeout clear it, and every claim's id is new.
    committed: (row.state === 'succeeded' || row.state === 'failed') && row.claim_id === claimId,
  });
}

/** The verb's refusal of a row as it is now: its state or kind, else the claim or a move meanwhile. */
function stateRefusal<V extends TaskVerb>(move: TaskMove<V>, row: TaskTable): AirlockError {
  const rule = verbRule(move.verb);
  try {
    checkMove(move.verb, row, move.run);
  } catch (error) {
    return error as AirlockError;
  }
  if (move.match?.claim_id !== undefined) {
    return new AirlockError(
      rule.refusal,
      `claim ${move.match.claim_id} no longer holds task ${row.key}`,
    );
  }
  return new AirlockError(rule.refusal, `task ${row.key} was moved meanwhile (it is ${row.state})`);
}

/**
 * Performs one move of the task state machine: checks the run guard, runs a
 * conditional UPDATE (the row must still be in one of the verb's from-states,
 * so exactly one of two racing moves wins), emits the verb's event and, when
 * asked, settles the run. The only code that writes `tasks.state` besides
 * {@link plantRow} and `cancelOutstanding` (cancel-outstanding.ts).
 * Returns the moved row, or null when `quiet` and the row was not movable.
 * @throws AirlockError run_not_running, task_not_found, or the verb's refusal (409).
 */
export async function moveTask<V extends TaskVerb>(tx: Tx, move: TaskMove<V>): Promise<TaskTable>;
export async function moveTask<V extends TaskVerb>(
  tx: Tx,
  move: TaskMove<V>,
  options: { quiet: true },
): Promise<TaskTable | null>;
export async function moveTask<V extends TaskVerb>(
  tx: Tx,
  move: TaskMove<V>,
  options?: { quiet: true },
): Promise<TaskTable | null> {
  const rule = verbRule(move.verb);
  try {
    guardRun(move.verb, move.run);
  } catch (error) {
    if (options?.quiet) return null;
    throw error;
  }
  const from = move.from !== undefined ? [move.from] : rule.from;
  if (move.from !== undefined && !rule.from.includes(move.from)) {
    throw new Error(`${move.verb} never starts at ${move.from}`);
  }
  const keepsState = rule.to === 'same';
  if (!keepsState && !from.every((state) => mayReach(move.verb, state, move.to))) {
    throw new Error(`${move.verb} never ends at ${move.to}`);
  }
  const change: Record<string, unknown> = {
    ...move.set,
    ...(keepsState ? {} : { state: move.to }),
    updated_at: tx.now,
  };
  // A settle after the move reads the run's rows: on PostgreSQL, in the same write as the UPDATE.
  const ahead = move.settle ? readAttentionAhead(tx, move.settle.run) : undefined;
  const moved = await writeTaskMove(tx, {
    verb: move.verb,
    runId: move.run.id,
    key: move.key,
    change,
    from,
    kinds: rule.kinds ?? [],
    claimId: move.match?.claim_id,
    due: move.due,
  });
  if (!moved) {
    if (options?.quiet) return null;
    throw await refusal(tx, move);
  }
  if (move.event) {
    tx.emit(
      taskEvent(
        { workspace_id: move.run.workspace_id, run_id: move.run.id, task_key: move.key },
        moved.state,
        move.event,
        move.principal,
      ),
    );
  }
  if (move.settle) await settleRun(move.settle.ctx, tx, move.settle.run, ahead);
  return moved;
}

/**
 * The event of a task move: the caller's typed event with the state the row
 * reached. The one cast is sound: `TaskEventOf` tied the type and its data
 * together where the caller built them, and every task event declares `state`.
 */
export function taskEvent(
  address: { workspace_id: string; run_id: string; task_key: string },
  state: TaskState,
  event: { type: EventType; data?: object | undefined },
  principal: string | null,
): PendingEvent {
  return {
    ...address,
    type: event.type,
    data: { ...event.data, state },
    principal,
  } as PendingEvent;
}

/**
 * Writes a freshly planted row: it starts at `ready` and the approval stage
 * has already chosen where it rests (one of plant's to-states). Emits
 * `task.created` and then the stage's event, in that order.
 * @throws AirlockError run_not_running when the run ended.
 */
export async function plantRow(
  tx: Tx,
  run: RunOfMove,
  row: TaskTable,
  events: {
    created: { data: Omit<EventData<'task.created'>, 'state'>; principal: string | null };
    /** `principal`: who decided the outcome (`policy` for the approval stage's verdict). */
    outcome: TaskEventOf<'plant'> & { principal?: string | null };
  },
): Promise<void> {
  guardRun('plant', run);
  if (!mayReach('plant', 'ready', row.state)) {
    throw new Error(`plant never ends at ${row.state}`);
  }
  const address = { workspace_id: run.workspace_id, run_id: run.id, task_key: row.key };
  tx.emit({
    ...address,
    type: 'task.created',
    data: { ...events.created.data, state: 'ready' },
    principal: events.created.principal,
  });
  tx.emit(taskEvent(address, row.state, events.outcome, events.outcome.principal ?? null));
  // A large input (an 800 KB pasted script) is written a turn after the policy layers read it.
  if (row.tool_input.length > LARGE_VALUE_CHARACTERS) await nextTurn(null);
  await insertTask(tx, row);
}
