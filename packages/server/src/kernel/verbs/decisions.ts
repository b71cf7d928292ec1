import { timingSafeEqual } from 'node:crypto';
import { resolveToolName } from '@airlock/core';
import { AirlockError } from '../../errors.js';
import { type Principal, principalName } from '../../store/accounts.js';
import { hashToken, newToken } from '../../store/ids.js';
import { principalRoster } from '../../store/principal-roster.js';
import type { Reader } from '../../store/reader.js';
import type { RunTable, TaskTable } from '../../store/schema.js';
import type { Tx } from '../../store/store.js';
import { findTask } from '../../store/tasks.js';
import { preciseNow } from '../../tracing/call-tracing.js';
import type { KernelContext } from '../context.js';
import { hookEventOf, hooksOf } from '../hooks/hooks.js';
import { moveTask, type TaskChange, taskEvent } from '../machines/move-task.js';
import { lockRun, readAttentionAhead, settleRun } from '../machines/run-state.js';
import {
  checkMove,
  checkStillWaiting,
  type TaskEventOf,
  type ToState,
} from '../machines/task-machine.js';
import { plantToolRow } from '../stage/approval-stage.js';
import { ASK_TOOL, checkAnswer, parseQuestion } from '../stage/questions.js';
import { policyForRun } from '../stage/run-policy.js';
import { type TaskView, taskVersion, taskView } from '../views.js';
import { policyOfWorkspace, requirementOf } from './approval-quorum.js';
import { checkDecider, checkNotRevoked, requestOf } from './approvers.js';

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
export async function readTask(tx: Reader, runId: string, key: string): Promise<TaskTable> {
  const row = await findTask(tx, runId, key);
  if (!row) throw new AirlockError('task_not_found', `no task ${key} in run ${runId}`);
  return row;
}

/** A member's move of one row: the verb, where it ends, and what it sets. */
export interface MemberMove<V extends 'approve' | 'deny' | 'resolve' | 'retry'> {
  verb: V;
  principal: string;
  /** A check of the row beyond its state (a guarded move reads the row first). */
  guard?: (row: TaskTable, tx: Tx, run: RunTable) => void | Promise<void>;
  /** Where the row ends and what else it sets, given the row when the move read it. */
  change: (row: TaskTable | null, tx: Tx, run: RunTable) => { to: ToState<V>; set: TaskChange };
  event: (row: TaskTable) => TaskEventOf<V>;
  /**
   * A follow-up write in the same transaction: on the moved row (never its
   * state, nor any other column the settle step reads, SETTLEMENT_COLUMNS),
   * or outside the run's rows (a remembered rule). The settle rows are read
   * before it runs, with the move.
   */
  after?: (row: TaskTable, tx: Tx, run: RunTable) => Promise<void>;
}

/**
 * Moves one row for a person, or answers 409 and changes nothing: the run
 * row is locked first (the kernel's lock order), then the state machine's
 * conditional UPDATE makes exactly one of two racing decisions win, and the
 * run settles.
 */
export async function memberMove<V extends 'approve' | 'deny' | 'resolve' | 'retry'>(
  ctx: KernelContext,
  address: TaskAddress,
  options: MemberMove<V>,
): Promise<TaskView> {
  const startedAt = ctx.tracing ? preciseNow() : 0;
  return ctx.store.transaction(async (tx) => {
    const run = await lockRun(tx, address.workspaceId, address.runId);
    let current: TaskTable | null = null;
    if (options.guard) {
      current = await readTask(tx, run.id, address.taskKey);
      checkMove(options.verb, current, run);
      // A retry's rows (failed, timed out) are not waiting: only a decision meets a deadline.
      checkStillWaiting(current, tx.now);
      await options.guard(current, tx, run);
    }
    const { to, set } = options.change(current, tx, run);
    // The settle below reads the run's rows: on PostgreSQL that read goes out right after the
    // move's UPDATE, in the same write (`after` leaves what it reads alone).
    const ahead = readAttentionAhead(tx, run);
    const row = await moveTask(tx, {
      verb: options.verb,
      run,
      key: address.taskKey,
      to,
      ...(current ? { from: current.state } : {}),
      set,
      // The event is emitted below, once the follow-up write has run.
      event: null,
      principal: options.principal,
    });
    await options.after?.(row, tx, run);
    const event = options.event(row);
    tx.emit(
      taskEvent(
        { workspace_id: run.workspace_id, run_id: run.id, task_key: row.key },
        row.state,
        event,
        options.principal,
      ),
    );
    await settleRun(ctx, tx, run, ahead);
    if (options.verb !== 'retry') observeDecision(ctx, tx, { row, verb: options.verb, startedAt });
    return taskView(row);
  });
}

/**
 * Refuses a decision on a row that changed since the version the person read.
 * @throws AirlockError version_mismatch (409).
 */
export function checkVersion(row: TaskTable, version: string): void {
  if (taskVersion(row) !== version) {
    throw new AirlockError(
      'version_mismatch',
      `task ${row.key} changed since version ${version}; read it again before deciding`,
    );
  }
}

/**
 * Records a person's decision on a waiting row once its unit commits: the wait and its spans.
 * A unit that rolls back (a PostgreSQL retry, a refusal at its end) records nothing.
 */
export function observeDecision(
  ctx: KernelContext,
  tx: Tx,
  decided: { row: TaskTable; verb: string; startedAt: number },
): void {
  const { row, verb } = decided;
  // A waiting row rests where it was planted: its creation is when it started to wait.
  const waitedSeconds = Math.max(0, (tx.now - row.created_at) / 1000);
  const { metrics, tracing } = ctx;
  if (!metrics && !tracing) return;
  tx.afterCommit(() => {
    metrics?.personDecisionSeconds.observe({ decision: verb }, waitedSeconds);
    tracing?.personDecided(
      { workspaceId: row.workspace_id, runId: row.run_id, key: row.key },
      { parkedAt: row.created_at, startedAt: decided.startedAt, verb, parked: row.kind !== 'ask' },
    );
  });
}

/**
 * Denies a parked row: it fails approval_denied with the person's reason, which the model reads.
 * A deny by any member the approval policy lets decide the row ends it, whatever approvals it had.
 * With `version` it denies only that version of the row; `via` says where the person decided
 * when outside the API (`Slack, <user>`, `email`), recorded on the event.
 * @throws AirlockError task_not_waiting (409) when the row is not at needs_approval,
 *   approver_not_allowed (403) when the policy does not let this member decide it or its
 *   credential was revoked while the request was on its way,
 *   version_mismatch (409) when the row changed since `version`.
 */
export function denyTask(
  ctx: KernelContext,
  principal: Principal,
  address: TaskAddress,
  reason: string | undefined,
  version?: string,
  via?: string,
): Promise<TaskView> {
  const who = principalName(principal);
  const detail = reason?.trim() ? reason : 'a person denied this tool call';
  return memberMove(ctx, address, {
    verb: 'deny',
    principal: who,
    // Only a member the approval policy lets decide the row may end it, and only the version seen.
    guard: async (row, tx, run) => {
      if (version !== undefined) checkVersion(row, version);
      const [policy, { revoked }] = await Promise.all([
        policyOfWorkspace(tx, run.workspace_id),
        principalRoster(tx, run.workspace_id),
      ]);
      const request = requestOf(run, row);
      checkDecider(requirementOf(policy, run, row), {
        who,
        verb: 'deny',
        run: request,
        taskKey: row.key,
      });
      // As an approve is: a credential revoked after its request was authenticated ends nothing.
      checkNotRevoked(revoked, who);
    },
    change: () => ({
      to: 'failed',
      set: {
        deadline_at: null,
        decided_by: who,
        error_code: 'approval_denied',
        error_detail: detail,
      },
    }),
    event: () => ({
      type: 'task.denied',
      data: {
        decided_by: who,
        error: { code: 'approval_denied', detail },
        ...(via ? { via } : {}),
      },
    }),
  });
}

/** How long an approved or retried hook row may run: its event's declared timeout. */
export function hookTimeoutMs(run: RunTable, row: TaskTable): number {
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
  return memberMove(ctx, address, {
    verb: 'resolve',
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
      to: failed ? 'failed' : 'succeeded',
      set: {
        deadline_at: null,
        decided_by: who,
        result: JSON.stringify(resolution.content ?? null),
        ...(failed
          ? { error_code: 'declined', error_detail: 'a person declined the question' }
          : {}),
      },
    }),
    event: () => ({
      type: 'task.resolved',
      data: { decided_by: who, outcome: failed ? ('failed' as const) : ('succeeded' as const) },
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
  return ctx.store.transaction(async (tx) => {
    const run = await lockRun(tx, principal.workspace_id, request.runId);
    if (run.state !== 'running') {
      throw new AirlockError('run_not_running', `run ${run.id} is ${run.state}`);
    }
    // A question by the name the stage reads (`ask`, also runner-qualified or aliased to it), so
    // that every row the stage plants as a question is checked and given its resolution token.
    const asks = resolveToolName(request.tool_name, policyForRun(run).toolAliases) === ASK_TOOL;
    const question = asks ? parseQuestion(request.tool_input) : null;
    if (typeof question === 'string') throw new AirlockError('invalid_question', question);
    const token = question ? newToken('answer') : null;
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
 * past canceling. `reason`, the caller's why, is kept as the row's error
 * (`canceled`), so the run's story and the audit trail say it.
 * @throws AirlockError task_not_waiting (409) when the row has started or settled.
 */
export function cancelTask(
  ctx: KernelContext,
  principal: Principal,
  address: TaskAddress,
  reason?: string | undefined,
): Promise<TaskView> {
  const who = principalName(principal);
  return ctx.store.transaction(async (tx) => {
    const run = await lockRun(tx, address.workspaceId, address.runId);
    const current = await readTask(tx, run.id, address.taskKey);
    if (current.origin !== 'model' || current.kind !== 'tool') {
      throw new AirlockError('task_not_waiting', `task ${current.key} is not a model call`);
    }
    if (!['ready', 'runnable', 'needs_approval'].includes(current.state)) {
      throw new AirlockError(
        'task_not_waiting',
        `task ${current.key} is ${current.state}; cancel needs ready, runnable or needs_approval`,
      );
    }
    const row = await moveTask(tx, {
      verb: 'cancel',
      run,
      key: current.key,
      to: 'canceled',
      from: current.state,
      set: {
        deadline_at: null,
        decided_by: who,
        ...(reason ? { error_code: 'canceled', error_detail: reason } : {}),
      },
      event: {
        type: 'task.canceled',
        data: {
          decided_by: who,
          ...(reason ? { error: { code: 'canceled', detail: reason } } : {}),
        },
      },
      principal: who,
    });
    await settleRun(ctx, tx, run);
    return taskView(row);
  });
}
