import { sql } from 'kysely';
import { AirlockError } from '../errors.js';
import { type PreparedQuery, readAhead, runPrepared } from '../store/prepared.js';
import type { RunTable } from '../store/schema.js';
import type { Store, Tx } from '../store/store.js';
import { stateLiteral } from '../store/tasks.js';
import type { KernelContext } from './context.js';
import { freshRows, SETTLEMENT_COLUMNS, type SettlementRow } from './fresh-runs.js';
import { rememberStored, setRunPhase, touchRun } from './run-machine.js';
import { holds } from './task-machine.js';
import { isTerminal } from './task-states.js';
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
  rememberStored(tx, run);
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

export type { SettlementRow } from './fresh-runs.js';

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

const OPEN_STATES = (
  ['ready', 'runnable', 'claimed', 'needs_approval', 'awaiting_input'] as const
).map((state) => stateLiteral(state));

/**
 * True when a row of any origin or round keeps an answer from being
 * delivered: it is open (granted, claimed, parked, asking) or it holds the
 * run. `except` names the stop hook of that answer, which is no obligation
 * of its own. One query that stops at the first such row, since a run may
 * hold many open rows.
 */
export async function openObligation(tx: Tx, run: RunTable, except: string): Promise<boolean> {
  const { rows } = await runPrepared(
    tx.db,
    tx.dialect,
    'tasks.open_obligation',
    (p) =>
      tx.db
        .selectFrom('tasks')
        .select('key')
        .where('run_id', '=', p('run_id'))
        .where((eb) =>
          eb.or([
            eb('state', 'in', OPEN_STATES),
            // The SQL form of holds() (task-machine.ts); a test checks that both agree.
            eb.and([
              eb('on_failure', '=', sql.lit('hold')),
              eb('state', 'in', [stateLiteral('failed'), stateLiteral('timed_out')]),
              eb.or([
                eb('error_code', 'is', null),
                eb('error_code', '!=', sql.lit('approval_denied')),
                eb('kind', '!=', sql.lit('tool')),
              ]),
            ]),
          ]),
        )
        .where((eb) => eb.or([eb('hook_source', 'is', null), eb('hook_source', '!=', p('except'))]))
        .limit(1),
    { run_id: run.id, except },
  );
  return rows.length > 0;
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
  const runId = run.id;
  tx.afterCommit(() => ctx.scheduleDrive(runId));
}

/** Under the test runner, every answer from memory is checked against the store. */
const CHECK_FRESH_ROWS = process.env.VITEST !== undefined;

/** The SQL reading of {@link attentionRows}: three index seeks, never a scan of the run. */
function attentionQuery(tx: Tx, run: RunTable): PreparedQuery {
  return {
    key: 'tasks.attention',
    build: (p) => {
      const waiting = tx.db
        .selectFrom('tasks')
        .select(SETTLEMENT_COLUMNS)
        .where('run_id', '=', p('run_id'))
        .where('state', 'in', [stateLiteral('needs_approval'), stateLiteral('awaiting_input')]);
      const holding = tx.db
        .selectFrom('tasks')
        .select(SETTLEMENT_COLUMNS)
        .where('run_id', '=', p('run_id'))
        .where('on_failure', '=', sql.lit('hold'))
        .where('state', 'in', [stateLiteral('failed'), stateLiteral('timed_out')]);
      const thisRound = tx.db
        .selectFrom('tasks')
        .select(SETTLEMENT_COLUMNS)
        .where('run_id', '=', p('run_id'))
        .where('round', '=', p('round'))
        .where('origin', '=', sql.lit('model'));
      return waiting.unionAll(holding).unionAll(thisRound);
    },
    values: { run_id: run.id, round: run.round },
  };
}

async function readAttentionRows(tx: Tx, run: RunTable): Promise<SettlementRow[]> {
  const { key, build, values } = attentionQuery(tx, run);
  const { rows } = await runPrepared<SettlementRow>(tx.db, tx.dialect, key, build, values);
  return rows;
}

/**
 * On PostgreSQL, asks for a run's settle rows in the same write as the
 * unit's next statement, right after it (see `readAhead`); undefined on
 * SQLite. For a caller whose next statement is the one move a settle then
 * follows, with no write between.
 */
export function readAttentionAhead(tx: Tx, run: RunTable): Promise<SettlementRow[]> | undefined {
  return readAhead<SettlementRow>(tx.db, tx.dialect, attentionQuery(tx, run));
}

/**
 * The rows the settle step reads, in key order: waiting on a person, holding,
 * and this round's model rows. A run created in this unit of work whose rows
 * only were planted since is answered from memory (the same rows the store
 * would return); any other run is read from the store.
 */
export async function attentionRows(
  tx: Tx,
  run: RunTable,
  ahead?: Promise<SettlementRow[]>,
): Promise<SettlementRow[]> {
  const fresh = freshRows(tx, run.id);
  if (!fresh && ahead) {
    const rows = inKeyOrder(await ahead);
    if (CHECK_FRESH_ROWS) await checkAgainstStore(tx, run, rows, 'read ahead');
    return rows;
  }
  if (!fresh) return inKeyOrder(await readAttentionRows(tx, run));
  const rows = inKeyOrder(
    fresh.filter(
      (r) =>
        r.state === 'needs_approval' ||
        r.state === 'awaiting_input' ||
        (r.on_failure === 'hold' && (r.state === 'failed' || r.state === 'timed_out')) ||
        (r.round === run.round && r.origin === 'model'),
    ),
  );
  if (CHECK_FRESH_ROWS) await checkAgainstStore(tx, run, rows, 'in memory');
  return rows;
}

/**
 * Under the test runner: the settle rows a shortcut gave must be the store's.
 * Rows read ahead were read a moment before this check, and a claim moves a
 * row between `runnable` and `claimed` without the run's lock (another
 * executor, another process): the settle step treats the two alike, and so
 * does this comparison for them. A run created in this unit is nobody else's.
 */
async function checkAgainstStore(
  tx: Tx,
  run: RunTable,
  rows: SettlementRow[],
  how: 'in memory' | 'read ahead',
) {
  const comparable = (list: SettlementRow[]) =>
    JSON.stringify(
      how === 'in memory'
        ? list
        : list.map((r) => (r.state === 'claimed' ? { ...r, state: 'runnable' } : r)),
    );
  const stored = comparable(inKeyOrder(await readAttentionRows(tx, run)));
  if (comparable(rows) !== stored) {
    throw new Error(`run ${run.id}: rows ${how} ${JSON.stringify(rows)}, stored ${stored}`);
  }
}

/** Rows by key (a row read twice counts once), in key order. */
function inKeyOrder(read: readonly SettlementRow[]): SettlementRow[] {
  const byKey = new Map(read.map((r) => [r.key, r]));
  const order = (key: string) => Number.parseInt(key.slice(1), 10);
  return [...byKey.values()].sort((a, b) => order(a.key) - order(b.key));
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
  const rows = await attentionRows(tx, run, ahead);
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
