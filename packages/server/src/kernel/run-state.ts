import { sql } from 'kysely';
import { runPrepared } from '../store/prepared.js';
import type { RunTable } from '../store/schema.js';
import type { Store, Tx } from '../store/store.js';
import type { KernelContext } from './context.js';
import { AirlockError } from './errors.js';
import { UNSTARTED_STATES } from './task-states.js';
import type { Attention } from './views.js';

const pending = new WeakMap<Tx, Set<RunTable>>();

/** The run columns a unit of work may change (written once, at its end). */
const TOUCHED_COLUMNS = [
  'state',
  'phase',
  'round',
  'task_counter',
  'attention',
  'final_answer',
  'error_code',
  'error_detail',
  'model_lease_owner',
  'model_lease_until',
  'continuations',
  'pending_answer',
  'compactions',
  'summary',
  'summary_through_round',
  'updated_at',
  'ended_at',
] as const satisfies readonly (keyof RunTable)[];

/**
 * Marks a run row changed in memory; it is written once, at the end of the
 * unit of work, however many steps changed it. The caller holds the run row.
 */
export function touchRun(tx: Tx, run: RunTable): void {
  run.updated_at = tx.now;
  let runs = pending.get(tx);
  if (!runs) {
    const set = new Set<RunTable>();
    runs = set;
    pending.set(tx, set);
    tx.beforeCommit(async () => {
      for (const changed of set) {
        const values = changed as unknown as Record<string, unknown>;
        // Kysely leaves undefined columns out of a SET; so does the prepared shape.
        const columns = TOUCHED_COLUMNS.filter((column) => values[column] !== undefined);
        await runPrepared(
          tx.db,
          tx.dialect,
          columns.length === TOUCHED_COLUMNS.length
            ? 'runs.touch'
            : `runs.touch:${columns.join(',')}`,
          (p) =>
            tx.db
              .updateTable('runs')
              .set(Object.fromEntries(columns.map((c) => [c, p(c)])))
              .where('id', '=', p('id')),
          values,
        );
      }
    });
  }
  runs.add(run);
}

/**
 * Reads a run of a workspace, locking its row on PostgreSQL until the transaction ends.
 * @throws AirlockError run_not_found when no such run is in the workspace.
 */
export async function lockRun(tx: Tx, workspaceId: string, runId: string): Promise<RunTable> {
  const { rows } = await runPrepared(
    tx.db,
    tx.dialect,
    'runs.lock',
    (p) =>
      tx.db
        .selectFrom('runs')
        .selectAll()
        .where('id', '=', p('id'))
        .where('workspace_id', '=', p('workspace_id'))
        .$if(tx.dialect === 'postgres', (qb) => qb.forUpdate()),
    { id: runId, workspace_id: workspaceId },
  );
  const run = rows[0];
  if (!run) throw new AirlockError('run_not_found', `no run ${runId} in this workspace`);
  return run;
}

/**
 * Reads a run of a workspace without locking.
 * @throws AirlockError run_not_found when no such run is in the workspace.
 */
export async function readRun(
  store: Store | Tx,
  workspaceId: string,
  runId: string,
): Promise<RunTable> {
  const run = await store.db
    .selectFrom('runs')
    .selectAll()
    .where('id', '=', runId)
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirst();
  if (!run) throw new AirlockError('run_not_found', `no run ${runId} in this workspace`);
  return run;
}

/** True when a failed row holds its run for a person (its `on_failure` is hold). */
export function holds(row: {
  state: string;
  on_failure: string;
  error_code: string | null;
  kind: string;
}): boolean {
  return (
    (row.state === 'failed' || row.state === 'timed_out') &&
    row.on_failure === 'hold' &&
    // A refused call is data the model reads; a refused hook still fails closed.
    (row.error_code !== 'approval_denied' || row.kind !== 'tool')
  );
}

/**
 * Recomputes what the run needs a person for, announcing `attention_required`
 * when a reason gains rows and `attention_cleared` when nothing is left; then
 * moves the run to its next round when every model row of this one has settled.
 */
export async function settleRun(ctx: KernelContext, tx: Tx, run: RunTable): Promise<void> {
  if (run.state !== 'running') return;
  const rows = await refreshAttention(tx, run);
  if (run.phase === 'hook') {
    // A kernel row (hook or summarizer) may have settled: the next step reads it again.
    run.phase = 'model';
    touchRun(tx, run);
    const runId = run.id;
    tx.afterCommit(() => ctx.scheduleDrive(runId));
    return;
  }
  if (run.phase !== 'tools') return;
  const roundRows = rows.filter((r) => r.origin === 'model' && r.round === run.round);
  const settled = roundRows.every(
    (r) => ['succeeded', 'failed', 'timed_out', 'canceled'].includes(r.state) && !holds(r),
  );
  if (!settled) return;
  run.phase = 'model';
  run.model_lease_owner = null;
  run.model_lease_until = null;
  touchRun(tx, run);
  const runId = run.id;
  tx.afterCommit(() => ctx.scheduleDrive(runId));
}

/**
 * Recomputes what the run needs a person for, announcing `attention_required`
 * when a reason gains rows and `attention_cleared` when nothing is left.
 * Returns the rows it read (waiting, holding, and this round's model rows).
 */
export async function refreshAttention(tx: Tx, run: RunTable) {
  // Three index seeks (parks and questions, holds, this round's model rows), never a scan of the run.
  const columns = ['key', 'state', 'on_failure', 'error_code', 'origin', 'round', 'kind'] as const;
  const { rows: read } = await runPrepared(
    tx.db,
    tx.dialect,
    'tasks.attention',
    (p) => {
      const waiting = tx.db
        .selectFrom('tasks')
        .select(columns)
        .where('run_id', '=', p('run_id'))
        .where('state', 'in', [sql.lit('needs_approval'), sql.lit('awaiting_input')]);
      const holding = tx.db
        .selectFrom('tasks')
        .select(columns)
        .where('run_id', '=', p('run_id'))
        .where('on_failure', '=', sql.lit('hold'))
        .where('state', 'in', [sql.lit('failed'), sql.lit('timed_out')]);
      const thisRound = tx.db
        .selectFrom('tasks')
        .select(columns)
        .where('run_id', '=', p('run_id'))
        .where('round', '=', p('round'))
        .where('origin', '=', sql.lit('model'));
      return waiting.unionAll(holding).unionAll(thisRound);
    },
    { run_id: run.id, round: run.round },
  );
  const byKey = new Map(read.map((r) => [r.key, r]));
  const order = (key: string) => Number.parseInt(key.slice(1), 10);
  const rows = [...byKey.values()].sort((a, b) => order(a.key) - order(b.key));
  const parked = rows.filter((r) => r.state === 'needs_approval').map((r) => r.key);
  // A question authored through the tasks door is its author's to answer: nobody else is nagged.
  const asked = rows
    .filter((r) => r.state === 'awaiting_input' && r.origin !== 'author')
    .map((r) => r.key);
  const held = rows.filter(holds).map((r) => r.key);
  const attention: Attention[] = [];
  if (parked.length > 0) attention.push({ reason: 'approval_required', blocked_task_keys: parked });
  if (asked.length > 0) attention.push({ reason: 'awaiting_human', blocked_task_keys: asked });
  if (held.length > 0) attention.push({ reason: 'failure_hold', blocked_task_keys: held });
  const before = run.attention ? (JSON.parse(run.attention) as Attention[]) : [];
  const encoded = attention.length > 0 ? JSON.stringify(attention) : null;
  if (encoded !== run.attention) {
    for (const entry of attention) {
      const previous = new Set(before.find((b) => b.reason === entry.reason)?.blocked_task_keys);
      if (entry.blocked_task_keys.some((key) => !previous.has(key))) {
        tx.emit({
          workspace_id: run.workspace_id,
          run_id: run.id,
          type: 'run.attention_required',
          data: { ...entry },
        });
      }
    }
    if (attention.length === 0) {
      tx.emit({ workspace_id: run.workspace_id, run_id: run.id, type: 'run.attention_cleared' });
    }
    run.attention = encoded;
    touchRun(tx, run);
  }
  return rows;
}

/** Cancels a run's unstarted rows (a stop, an abandon, or the end of the run). */
export async function cancelUnstarted(
  tx: Tx,
  run: RunTable,
  principal: string | null,
): Promise<string[]> {
  const canceled = await tx.db
    .updateTable('tasks')
    .set({ state: 'canceled', deadline_at: null, updated_at: tx.now, decided_by: principal })
    .where('run_id', '=', run.id)
    .where((eb) =>
      eb.or([
        eb('state', 'in', [...UNSTARTED_STATES]),
        // Hook work is canceled even mid-claim: a hook cannot keep a stopped run alive.
        eb.and([eb('state', '=', 'claimed'), eb('kind', 'in', ['hook', 'summary'])]),
      ]),
    )
    .returning('key')
    .execute();
  for (const { key } of canceled) {
    tx.emit({
      workspace_id: run.workspace_id,
      run_id: run.id,
      task_key: key,
      type: 'task.canceled',
      data: { state: 'canceled' },
      principal,
    });
  }
  return canceled.map((c) => c.key);
}

/** Ends a run: its final state, answer or error, and the lifecycle event. */
export async function finishRun(
  tx: Tx,
  run: RunTable,
  end: {
    state: 'completed' | 'canceled' | 'failed';
    finalAnswer?: string;
    error?: { code: string; detail: string };
    principal?: string | null;
  },
): Promise<void> {
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
  });
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
    principal: end.principal ?? null,
  });
}
