import { timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import { type Principal, principalName } from '../store/accounts.js';
import { hashToken, newToken } from '../store/ids.js';
import { runPrepared } from '../store/prepared.js';
import type { Database, RunTable, TaskTable } from '../store/schema.js';
import type { Tx } from '../store/store.js';
import { plantToolRow } from './approval-stage.js';
import type { KernelContext } from './context.js';
import { AirlockError } from './errors.js';
import { hookEventOf, hooksOf } from './hooks.js';
import { ASK_TOOL, checkAnswer, parseQuestion } from './questions.js';
import { lockRun, settleRun } from './run-state.js';
import { type TaskView, taskView } from './views.js';

/** Names a row: its workspace, run and key. */
export interface TaskAddress {
  workspaceId: string;
  runId: string;
  taskKey: string;
}

/**
 * Reads a task row of a run.
 * @throws AirlockError task_not_found.
 */
export async function readTask(
  tx: { db: Kysely<Database> },
  runId: string,
  key: string,
): Promise<TaskTable> {
  const row = await tx.db
    .selectFrom('tasks')
    .selectAll()
    .where('run_id', '=', runId)
    .where('key', '=', key)
    .executeTakeFirst();
  if (!row) throw new AirlockError('task_not_found', `no task ${key} in run ${runId}`);
  return row;
}

interface TransitionOptions {
  from: string[];
  verb: string;
  /** The columns to set; `row` is null on the direct path (verbs that need no read). */
  change: (row: TaskTable | null, tx: Tx, run: RunTable) => Partial<TaskTable>;
  event: (row: TaskTable) => { type: string; data: Record<string, unknown> };
  principal: string | null;
  guard?: (row: TaskTable) => void;
  /** A follow-up write on the moved row, in the same transaction. */
  after?: (row: TaskTable, tx: Tx, run: RunTable) => Promise<void>;
}

/**
 * Moves one row from an expected state to a new one, or answers 409 and
 * changes nothing: the conditional UPDATE is what makes exactly one of two
 * racing decisions win. The run row is locked first (the kernel's lock order).
 */
async function transition(
  ctx: KernelContext,
  address: TaskAddress,
  options: TransitionOptions,
): Promise<TaskView> {
  return ctx.store.transaction(async (tx) => {
    const run = await lockRun(tx, address.workspaceId, address.runId);
    const row = options.guard
      ? await guardedUpdate(tx, run, address.taskKey, options)
      : await directUpdate(tx, run, address.taskKey, options);
    await options.after?.(row, tx, run);
    const event = options.event(row);
    tx.emit({
      workspace_id: run.workspace_id,
      run_id: run.id,
      task_key: row.key,
      type: event.type,
      data: { state: row.state, ...event.data },
      principal: options.principal,
    });
    await settleRun(ctx, tx, run);
    return taskView(row);
  });
}

function notWaiting(row: TaskTable, options: { from: string[]; verb: string }): AirlockError {
  return new AirlockError(
    'task_not_waiting',
    `task ${row.key} is ${row.state}; ${options.verb} needs ${options.from.join(' or ')}`,
  );
}

/** The common case: one conditional UPDATE ... RETURNING; a read only explains a refusal. */
async function directUpdate(
  tx: Tx,
  run: RunTable,
  key: string,
  options: TransitionOptions,
): Promise<TaskTable> {
  const runId = run.id;
  const change: Record<string, unknown> = { ...options.change(null, tx, run), updated_at: tx.now };
  const columns = Object.keys(change).filter((column) => change[column] !== undefined);
  const values: Record<string, unknown> = { run_id: runId, key };
  for (const column of columns) values[`set:${column}`] = change[column];
  options.from.forEach((state, i) => {
    values[`from:${i}`] = state;
  });
  const { rows } = await runPrepared(
    tx.db,
    tx.dialect,
    `tasks.transition:${columns.join(',')}:${options.from.length}`,
    (p) =>
      tx.db
        .updateTable('tasks')
        .set(Object.fromEntries(columns.map((column) => [column, p(`set:${column}`)])))
        .where('run_id', '=', p('run_id'))
        .where('key', '=', p('key'))
        .where(
          'state',
          'in',
          options.from.map((_, i) => p(`from:${i}`)),
        )
        .returningAll(),
    values,
  );
  const updated = rows[0];
  if (updated) return updated;
  throw notWaiting(await readTask(tx, runId, key), options);
}

/** A transition that depends on the row: read, check, then a conditional UPDATE. */
async function guardedUpdate(
  tx: Tx,
  run: RunTable,
  key: string,
  options: TransitionOptions,
): Promise<TaskTable> {
  const current = await readTask(tx, run.id, key);
  if (!options.from.includes(current.state)) throw notWaiting(current, options);
  options.guard?.(current);
  const change = { ...options.change(current, tx, run), updated_at: tx.now };
  const updated = await tx.db
    .updateTable('tasks')
    .set(change)
    .where('run_id', '=', current.run_id)
    .where('key', '=', current.key)
    .where('state', '=', current.state)
    .executeTakeFirst();
  if (Number(updated.numUpdatedRows) !== 1) {
    throw new AirlockError('task_not_waiting', `task ${current.key} was decided meanwhile`);
  }
  return { ...current, ...change };
}

/**
 * Approves a parked row: it becomes runnable for executors.
 * @throws AirlockError task_not_waiting (409) when the row is not at needs_approval.
 */
export function approveTask(
  ctx: KernelContext,
  principal: Principal,
  address: TaskAddress,
): Promise<TaskView> {
  const who = principalName(principal);
  return transition(ctx, address, {
    from: ['needs_approval'],
    verb: 'approve',
    principal: who,
    change: () => ({ state: 'runnable', deadline_at: null, decided_by: who }),
    // An approved hook's timeout starts now, as if it had been granted.
    after: async (row, tx, run) => {
      if (row.kind !== 'hook') return;
      row.deadline_at = tx.now + hookTimeoutMs(run, row);
      await tx.db
        .updateTable('tasks')
        .set({ deadline_at: row.deadline_at })
        .where('run_id', '=', row.run_id)
        .where('key', '=', row.key)
        .execute();
    },
    event: (row) => ({
      type: 'task.approved',
      data: { decided_by: who, ...(row.kind === 'tool' ? {} : { kind: row.kind }) },
    }),
  });
}

/**
 * Denies a parked row: it fails approval_denied with the person's reason, which the model reads.
 * @throws AirlockError task_not_waiting (409) when the row is not at needs_approval.
 */
export function denyTask(
  ctx: KernelContext,
  principal: Principal,
  address: TaskAddress,
  reason: string | undefined,
): Promise<TaskView> {
  const who = principalName(principal);
  const detail = reason?.trim() ? reason : 'a person denied this tool call';
  return transition(ctx, address, {
    from: ['needs_approval'],
    verb: 'deny',
    principal: who,
    change: () => ({
      state: 'failed',
      deadline_at: null,
      decided_by: who,
      error_code: 'approval_denied',
      error_detail: detail,
    }),
    event: () => ({
      type: 'task.denied',
      data: { decided_by: who, error: { code: 'approval_denied', detail } },
    }),
  });
}

function hookTimeoutMs(run: RunTable, row: TaskTable): number {
  const event = hookEventOf(row);
  return (event && hooksOf(run)[event]?.timeout_ms) || 30_000;
}

function sameHash(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

/**
 * Resolves a question resting at awaiting_input with the person's content
 * (or declines it with outcome failed). A question authored through the tasks
 * door is answered only with its resolution token; a model's question by any
 * member credential of the workspace.
 * @throws AirlockError task_not_waiting (409) for any row not awaiting input,
 * forbidden (403) without the right token, invalid_resolution (422) for an
 * answer outside the question's options.
 */
export function resolveTask(
  ctx: KernelContext,
  principal: Principal,
  address: TaskAddress,
  resolution: {
    content?: unknown;
    outcome?: 'succeeded' | 'failed' | undefined;
    resolution_token?: string | undefined;
  },
): Promise<TaskView> {
  const who = principalName(principal);
  const failed = resolution.outcome === 'failed';
  return transition(ctx, address, {
    from: ['awaiting_input'],
    verb: 'resolution',
    principal: who,
    guard: (row) => {
      if (row.resolution_token_hash !== null) {
        const given = resolution.resolution_token;
        if (!given || !sameHash(hashToken(given), row.resolution_token_hash)) {
          throw new AirlockError(
            'forbidden',
            `task ${row.key} was authored through the tasks door: only its resolution_token answers it`,
          );
        }
      }
      if (!failed) checkAnswer(row, resolution.content);
    },
    change: () => ({
      state: failed ? 'failed' : 'succeeded',
      deadline_at: null,
      decided_by: who,
      result: JSON.stringify(resolution.content ?? null),
      ...(failed ? { error_code: 'declined', error_detail: 'a person declined the question' } : {}),
    }),
    event: () => ({
      type: 'task.resolved',
      data: { decided_by: who, outcome: failed ? 'failed' : 'succeeded' },
    }),
  });
}

/**
 * Retries a row that holds its run (on_failure hold): an expired park parks
 * again with a fresh clock, any other failure becomes runnable again.
 * @throws AirlockError task_not_waiting (409) when the row is not holding the run.
 */
export function retryTask(
  ctx: KernelContext,
  principal: Principal,
  address: TaskAddress,
): Promise<TaskView> {
  const who = principalName(principal);
  return transition(ctx, address, {
    from: ['failed', 'timed_out'],
    verb: 'retry',
    principal: who,
    guard: (row) => {
      if (row.on_failure !== 'hold' || row.error_code === 'approval_denied') {
        throw new AirlockError(
          'task_not_waiting',
          `task ${row.key} does not hold its run (on_failure ${row.on_failure}, ${row.error_code})`,
        );
      }
    },
    change: (row, tx, run) => {
      // An expired decision waits again with a fresh clock; anything else runs again.
      const again = { deadline_at: tx.now + ctx.parkTtlMs, error_code: null, error_detail: null };
      if (row?.error_code === 'approval_expired') {
        return { ...again, state: 'needs_approval', decided_by: who };
      }
      if (row?.error_code === 'question_expired') {
        return { ...again, state: 'awaiting_input', decided_by: who };
      }
      return {
        state: 'runnable',
        claim_id: null,
        lease_until: null,
        // A retried hook gets its timeout afresh.
        deadline_at: row?.kind === 'hook' ? tx.now + hookTimeoutMs(run, row) : null,
        error_code: null,
        error_detail: null,
        result: null,
        decided_by: who,
      };
    },
    event: (row) => ({
      type: 'task.retried',
      data: {
        decided_by: who,
        kind: row.kind,
        deadline_at: row.deadline_at,
        addressee: row.addressee,
      },
    }),
  });
}

/**
 * Appends an author row through the tasks door: the origin is `author`
 * whatever the body says, and it crosses the approval stage like any row.
 * An `ask` row becomes a question addressed to nobody; the receipt carries
 * the `resolution_token` that alone answers it.
 * @throws AirlockError run_not_found, run_not_running, invalid_question.
 */
export async function appendAuthorRow(
  ctx: KernelContext,
  principal: Principal,
  request: {
    runId: string;
    tool_name: string;
    tool_input: unknown;
    on_failure?: 'continue' | 'hold' | undefined;
  },
): Promise<TaskView & { resolution_token?: string }> {
  const question = request.tool_name === ASK_TOOL ? parseQuestion(request.tool_input) : null;
  if (typeof question === 'string') throw new AirlockError('invalid_question', question);
  const token = question ? newToken('answer') : null;
  return ctx.store.transaction(async (tx) => {
    const run = await lockRun(tx, principal.workspace_id, request.runId);
    if (run.state !== 'running') {
      throw new AirlockError('run_not_running', `run ${run.id} is ${run.state}`);
    }
    const row = await plantToolRow(ctx, tx, run, {
      resolutionTokenHash: token ? hashToken(token) : undefined,
      origin: 'author',
      toolName: request.tool_name,
      toolInput: request.tool_input,
      toolCallId: null,
      onFailure: request.on_failure ?? 'continue',
      round: run.round,
      principal: principalName(principal),
    });
    await settleRun(ctx, tx, run);
    const view = taskView(row);
    return token && row.state === 'awaiting_input' ? { ...view, resolution_token: token } : view;
  });
}

/**
 * Cancels an unstarted model row (ready, runnable or parked) at its caller's
 * request: the model reads that it was canceled. A row an executor holds is
 * past canceling.
 * @throws AirlockError task_not_waiting (409) when the row has started or settled.
 */
export function cancelTask(
  ctx: KernelContext,
  principal: Principal,
  address: TaskAddress,
): Promise<TaskView> {
  const who = principalName(principal);
  return transition(ctx, address, {
    from: ['ready', 'runnable', 'needs_approval'],
    verb: 'cancel',
    principal: who,
    guard: (row) => {
      if (row.origin !== 'model' || row.kind !== 'tool') {
        throw new AirlockError('task_not_waiting', `task ${row.key} is not a model call`);
      }
    },
    change: () => ({ state: 'canceled', deadline_at: null, decided_by: who }),
    event: () => ({ type: 'task.canceled', data: { decided_by: who } }),
  });
}
