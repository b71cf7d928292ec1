import type { EventType, RunState } from '@airlock/core';
import { AirlockError } from '../../errors.js';
import { insertRunRow, writeModelLease, writeRunAtCommit } from '../../store/run-writes.js';
import type { RunPhase, RunTable } from '../../store/schema.js';
import type { Tx } from '../../store/store.js';
import { cancelOutstanding } from './cancel-outstanding.js';

// Every state a run can be in (only `running` is not an end): the wire's, from @airlock/core.
export { RUN_STATES, type RunState } from '@airlock/core';

/** The ends of a run. */
export type RunEnd = Exclude<RunState, 'running'>;

/** Where every run starts: running, its next step (the first model request) due. */
export const RUN_START = { state: 'running', phase: 'model' } as const satisfies {
  state: RunState;
  phase: RunPhase;
};

/**
 * Writes a new run row: the only way a run comes to be, in the machine's start state.
 * @throws Error when the row is not in {@link RUN_START} (a kernel bug, never a caller's).
 */
export async function startRun(tx: Tx, run: RunTable): Promise<void> {
  if (run.state !== RUN_START.state || run.phase !== RUN_START.phase) {
    throw new Error(
      `a run starts ${RUN_START.state}/${RUN_START.phase}, not ${run.state}/${run.phase}`,
    );
  }
  await insertRunRow(tx, run);
}

/** Why a running run's phase moves, and between which phases (`done` is reached only by an end). */
export const RUN_PHASE_MOVES = {
  round_planted: { from: ['model'], to: 'tools', summary: "the model's round of calls is planted" },
  wait_for_obligations: {
    from: ['model'],
    to: 'tools',
    summary: 'a final answer waits until every row of every origin has settled',
  },
  wait_for_kernel_row: {
    from: ['model', 'hook'],
    to: 'hook',
    summary: 'a hook or summarizer row must settle first',
  },
  round_settled: {
    from: ['tools'],
    to: 'model',
    summary: "the round's model rows settled and nothing holds (with an answer pending: every row)",
  },
  kernel_row_settled: { from: ['hook'], to: 'model', summary: 'the kernel row settled' },
  continued: {
    from: ['model'],
    to: 'model',
    summary: 'the stop hook asked for another round',
  },
} as const satisfies Record<string, { from: readonly RunPhase[]; to: RunPhase; summary: string }>;

/** A reason a running run's phase moves. */
export type RunPhaseMove = keyof typeof RUN_PHASE_MOVES;

/** Every event about a run as a whole (the feed's `run.*` types), from core's event union. */
export type RunEventType = Extract<EventType, `run.${string}`>;

/**
 * Marks a run row changed in memory; it is written once, at the end of the
 * unit of work, however many steps changed it. The caller holds the run row.
 * The only writer of a run row after its insert.
 */
export function touchRun(tx: Tx, run: RunTable): void {
  run.updated_at = tx.now;
  writeRunAtCommit(tx, run);
}

/**
 * Moves a running run's phase for a reason of {@link RUN_PHASE_MOVES}; a move
 * to the phase it is already in changes nothing. Leaving `model` releases the
 * model lease (the next step is someone else's to take).
 * @throws Error when the table does not allow the move (a kernel bug, never a caller's).
 */
export function setRunPhase(tx: Tx, run: RunTable, reason: RunPhaseMove): void {
  const rule: { from: readonly RunPhase[]; to: RunPhase } = RUN_PHASE_MOVES[reason];
  if (run.state !== 'running' || !rule.from.includes(run.phase)) {
    throw new Error(`run ${run.id} (${run.state}, ${run.phase}): ${reason} needs ${rule.from}`);
  }
  if (run.phase === rule.to && reason !== 'continued') return;
  run.phase = rule.to;
  run.model_lease_owner = null;
  run.model_lease_until = null;
  touchRun(tx, run);
}

/** The kind of a run's provider (`gateway`, `scripted`, ...), read from its frozen configuration. */
export function providerKind(run: Pick<RunTable, 'provider'>): string {
  return (JSON.parse(run.provider) as { kind: string }).kind;
}

/** A model lease that never lapses: held by an external provider's client until it sends a round. */
export const CLIENT_HOLD_UNTIL = 253_402_300_799_999;

/**
 * Holds a run's model turn for its external client (a gateway, a hooked
 * agent, a framework adapter): nobody in the kernel asks a model for it, and
 * the resume sweep passes the idle run by until the client sends its round.
 */
export function holdModelTurnForClient(tx: Tx, run: RunTable): void {
  run.model_lease_owner = 'client';
  run.model_lease_until = CLIENT_HOLD_UNTIL;
  touchRun(tx, run);
}

/**
 * Ends a running run: its final state, answer or error, and the lifecycle
 * event. Any end but `completed` first cancels the run's outstanding rows
 * (a completed run has none: it settles only when every row has).
 * @throws AirlockError run_not_running when the run already ended.
 */
export async function endRun(
  tx: Tx,
  run: RunTable,
  end: {
    state: RunEnd;
    finalAnswer?: string;
    error?: { code: string; detail: string };
    principal?: string | null;
  },
): Promise<void> {
  if (run.state !== 'running') {
    throw new AirlockError('run_not_running', `run ${run.id} is ${run.state}`);
  }
  const principal = end.principal ?? null;
  if (end.state !== 'completed') await cancelOutstanding(tx, run, principal ?? 'kernel');
  const hadAttention = run.attention !== null;
  Object.assign(run, {
    state: end.state,
    phase: 'done',
    final_answer: end.finalAnswer ?? null,
    error_code: end.error?.code ?? null,
    error_detail: end.error?.detail ?? null,
    attention: null,
    pending_answer: null,
    model_lease_owner: null,
    model_lease_until: null,
    updated_at: tx.now,
    ended_at: tx.now,
  } satisfies Partial<RunTable>);
  touchRun(tx, run);
  if (hadAttention) {
    tx.emit({ workspace_id: run.workspace_id, run_id: run.id, type: 'run.attention_cleared' });
  }
  tx.emit({
    workspace_id: run.workspace_id,
    run_id: run.id,
    type: `run.${end.state}`,
    data: {
      state: end.state,
      ...(end.finalAnswer !== undefined ? { final_answer: end.finalAnswer } : {}),
      ...(end.error ? { error: end.error } : {}),
    },
    principal,
  });
}

/**
 * Leases the model turn of a run this unit of work holds locked and has just
 * found ready for its next model request (written with the unit): the checks
 * before the request and the lease commit together, so no other process can
 * take the turn, and finish a round, between them.
 */
export function leaseCheckedModelTurn(
  tx: Tx,
  run: RunTable,
  lease: { owner: string; forMs: number },
): void {
  run.model_lease_owner = lease.owner;
  run.model_lease_until = tx.now + lease.forMs;
  touchRun(tx, run);
}

/**
 * Takes a running run's model lease for `forMs` when its next step is the
 * model's and nobody holds the lease (written at once, not at the end of the
 * unit of work: the lease is what keeps a second kernel off the run while its
 * provider is asked outside any transaction). Returns the run as leased,
 * undefined when the lease is not free.
 */
export async function leaseModel(
  tx: Tx,
  lease: { runId: string; owner: string; forMs: number },
): Promise<RunTable | undefined> {
  return writeModelLease(tx, {
    runId: lease.runId,
    owner: lease.owner,
    until: tx.now + lease.forMs,
  });
}
