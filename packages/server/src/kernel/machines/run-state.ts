import { AirlockError } from '../../errors.js';
import type { Reader } from '../../store/reader.js';
import { lockRunRow, readRunRow } from '../../store/run-writes.js';
import type { RunTable } from '../../store/schema.js';
import {
  hasOpenRow,
  readSettlementRowsAhead,
  type SettlementRow,
  settlementRows,
} from '../../store/settlement-rows.js';
import type { Tx } from '../../store/store.js';
import type { KernelContext } from '../context.js';
import type { Attention } from '../views.js';
import { holdModelTurnForClient, providerKind, setRunPhase, touchRun } from './run-machine.js';
import { holds } from './task-machine.js';
import { isTerminal } from './task-states.js';

/**
 * Reads a run of a workspace, locking its row on PostgreSQL until the
 * transaction ends; undefined when there is none (pruned, say).
 */
export async function lockRunIfAny(
  tx: Tx,
  workspaceId: string,
  runId: string,
): Promise<RunTable | undefined> {
  return lockRunRow(tx, workspaceId, runId);
}

/**
 * Reads a run of a workspace, locking its row on PostgreSQL until the transaction ends.
 * @throws AirlockError run_not_found when no such run is in the workspace.
 */
export async function lockRun(tx: Tx, workspaceId: string, runId: string): Promise<RunTable> {
  const run = await lockRunIfAny(tx, workspaceId, runId);
  if (!run) throw new AirlockError('run_not_found', `no run ${runId} in this workspace`);
  return run;
}

/**
 * Reads a run of a workspace without locking (on the store, or in a unit of work).
 * @throws AirlockError run_not_found when no such run is in the workspace.
 */
export async function readRun(
  reader: Reader,
  workspaceId: string,
  runId: string,
): Promise<RunTable> {
  const run = await readRunRow(reader, workspaceId, runId);
  if (!run) throw new AirlockError('run_not_found', `no run ${runId} in this workspace`);
  return run;
}

export type { SettlementRow } from '../../store/settlement-rows.js';

/**
 * True when the rows a run waits on let its next round start: nothing holds,
 * and no model row of the current round is open. (With an answer pending,
 * see {@link openObligation} instead: every row of every origin counts.)
 */
export function roundSettled(
  run: Pick<RunTable, 'round'>,
  rows: readonly SettlementRow[],
): boolean {
  if (rows.some(holds)) return false;
  return !rows.some((r) => !isTerminal(r.state) && r.origin === 'model' && r.round === run.round);
}

/**
 * True when a row of any origin or round keeps an answer from being
 * delivered: it is open (granted, claimed, parked, asking) or it holds the
 * run. `except` names the stop hook of that answer, which is no obligation
 * of its own.
 */
export async function openObligation(tx: Tx, run: RunTable, except: string): Promise<boolean> {
  return hasOpenRow(tx, run.id, except);
}

/** The hook source of the stop hook that passes a run's pending answer. */
export function stopSourceOf(run: Pick<RunTable, 'continuations'>): string {
  return `stop:${run.continuations}`;
}

/**
 * Recomputes what the run needs a person for, announcing `attention_required`
 * when a reason gains rows and `attention_cleared` when nothing is left; then
 * moves the run to its next step when the rows it waits on have settled.
 */
export async function settleRun(
  ctx: KernelContext,
  tx: Tx,
  run: RunTable,
  ahead?: Promise<SettlementRow[]>,
): Promise<void> {
  if (run.state !== 'running') return;
  const rows = await refreshAttention(tx, run, ahead);
  if (run.phase === 'hook') {
    // A kernel row (hook or summarizer) may have settled: the next step reads it again.
    setRunPhase(tx, run, 'kernel_row_settled');
  } else if (run.phase !== 'tools') {
    return;
  } else if (
    run.pending_answer === null
      ? !roundSettled(run, rows)
      : await openObligation(tx, run, stopSourceOf(run))
  ) {
    return;
  } else {
    setRunPhase(tx, run, 'round_settled');
  }
  if (drivenByClient(ctx, run)) {
    // Nobody in the kernel takes the next step: hold it for the client now, not in a drive's own commit.
    holdModelTurnForClient(tx, run);
    return;
  }
  const runId = run.id;
  tx.afterCommit(() => ctx.scheduleDrive(runId));
}

/** A run whose rounds come from a client outside the kernel (its provider is external). */
export function drivenByClient(ctx: KernelContext, run: RunTable): boolean {
  return ctx.providers.get(providerKind(run))?.external === true;
}

/**
 * On PostgreSQL, asks for a run's settle rows in the same write as the
 * unit's next statement, right after it; undefined on SQLite. For a caller
 * whose next statement is the one move a settle then follows, with no write
 * between (see `readSettlementRowsAhead`).
 */
export function readAttentionAhead(tx: Tx, run: RunTable): Promise<SettlementRow[]> | undefined {
  return readSettlementRowsAhead(tx, run);
}

/**
 * Recomputes what the run needs a person for, announcing `attention_required`
 * when a reason gains rows and `attention_cleared` when nothing is left.
 * Returns the rows it read: waiting on a person, holding, and this round's model rows.
 */
export async function refreshAttention(
  tx: Tx,
  run: RunTable,
  ahead?: Promise<SettlementRow[]>,
): Promise<SettlementRow[]> {
  const rows = await settlementRows(tx, run, ahead);
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
