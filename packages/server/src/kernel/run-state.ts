import { sql } from 'kysely';
import { runPrepared } from '../store/prepared.js';
import type { RunTable } from '../store/schema.js';
import type { Store, Tx } from '../store/store.js';
import type { KernelContext } from './context.js';
import { AirlockError } from './errors.js';
import { setRunPhase, touchRun } from './run-machine.js';
import { holds } from './task-machine.js';
import { isTerminal, stateLiteral } from './task-states.js';
import type { Attention } from './views.js';

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

/** A row as settlement reads it. */
export type SettlementRow = Awaited<ReturnType<typeof refreshAttention>>[number];

/**
 * True when the rows a run waits on let it take its next step: nothing holds,
 * and no model row of the current round is outstanding; with an answer
 * pending, no row of any origin is outstanding either (a stop hook of that
 * answer, named by `except`, aside).
 */
export function obligationsSettled(
  run: Pick<RunTable, 'round' | 'pending_answer'>,
  rows: readonly SettlementRow[],
  except?: string,
): boolean {
  const counted = except === undefined ? rows : rows.filter((r) => r.hook_source !== except);
  if (counted.some(holds)) return false;
  const open = counted.filter((r) => !isTerminal(r.state));
  if (run.pending_answer !== null) return open.length === 0;
  return !open.some((r) => r.origin === 'model' && r.round === run.round);
}

/**
 * Recomputes what the run needs a person for, announcing `attention_required`
 * when a reason gains rows and `attention_cleared` when nothing is left; then
 * moves the run to its next step when the rows it waits on have settled.
 */
export async function settleRun(ctx: KernelContext, tx: Tx, run: RunTable): Promise<void> {
  if (run.state !== 'running') return;
  const rows = await refreshAttention(tx, run);
  if (run.phase === 'hook') {
    // A kernel row (hook or summarizer) may have settled: the next step reads it again.
    setRunPhase(tx, run, 'kernel_row_settled');
  } else if (run.phase !== 'tools' || !obligationsSettled(run, rows)) {
    return;
  } else {
    setRunPhase(tx, run, 'round_settled');
  }
  const runId = run.id;
  tx.afterCommit(() => ctx.scheduleDrive(runId));
}

/**
 * Recomputes what the run needs a person for, announcing `attention_required`
 * when a reason gains rows and `attention_cleared` when nothing is left.
 * Returns every row the run may wait on: outstanding (of any origin) and holding.
 */
export async function refreshAttention(tx: Tx, run: RunTable) {
  // Index seeks (parks and questions, holds) and the run's key range for work in flight, never a scan of the store.
  const columns = [
    'key',
    'state',
    'on_failure',
    'error_code',
    'origin',
    'round',
    'kind',
    'hook_source',
  ] as const;
  const { rows: read } = await runPrepared(
    tx.db,
    tx.dialect,
    'tasks.obligations',
    (p) => {
      const waiting = tx.db
        .selectFrom('tasks')
        .select(columns)
        .where('run_id', '=', p('run_id'))
        .where('state', 'in', [stateLiteral('needs_approval'), stateLiteral('awaiting_input')]);
      const holding = tx.db
        .selectFrom('tasks')
        .select(columns)
        .where('run_id', '=', p('run_id'))
        .where('on_failure', '=', sql.lit('hold'))
        .where('state', 'in', [stateLiteral('failed'), stateLiteral('timed_out')]);
      const working = tx.db
        .selectFrom('tasks')
        .select(columns)
        .where('run_id', '=', p('run_id'))
        .where('state', 'in', [
          stateLiteral('ready'),
          stateLiteral('runnable'),
          stateLiteral('claimed'),
        ]);
      return waiting.unionAll(holding).unionAll(working);
    },
    { run_id: run.id },
  );
  const order = (key: string) => Number.parseInt(key.slice(1), 10);
  const rows = [...read].sort((a, b) => order(a.key) - order(b.key));
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
