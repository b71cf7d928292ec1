import { AirlockError } from '../../errors.js';
import type { Principal } from '../../store/accounts.js';
import type { RunTable, TaskTable } from '../../store/schema.js';
import type { Tx } from '../../store/store.js';
import {
  type RowAddress,
  readVisibleTask,
  type TaskWithRun,
  type VisibleRow,
} from '../../store/task-inbox.js';
import type { KernelContext } from '../context.js';
import type { RunState } from '../machines/run-machine.js';
import { lockRunIfAny } from '../machines/run-state.js';
import { checkMove } from '../machines/task-machine.js';
import type { TaskAddress } from './decisions.js';

/**
 * What an executor may see of a row, and which rows it may not take: the
 * reads and refusals the executor's verbs (executor.ts) share.
 */

/** The kind an executor's inbox lists a row as: work to claim, or a decision to watch. */
export type InboxKind = 'tool' | 'hook' | 'approval' | 'ask';

/** How an executor's inbox lists a row. */
export function inboxKind(row: Pick<TaskTable, 'state' | 'kind'>): InboxKind {
  if (row.state === 'needs_approval') return 'approval';
  if (row.state === 'awaiting_input' || row.kind === 'ask') return 'ask';
  return row.kind === 'hook' ? 'hook' : 'tool';
}

/** A row an executor may see, with its run's state and whether the run froze policy layers. */
export type VisibleTask = TaskWithRun;

/** Where a row an executor names is, in its own workspace. */
export function rowAddress(principal: Principal, address: TaskAddress): RowAddress {
  return { workspaceId: principal.workspace_id, runId: address.runId, key: address.taskKey };
}

/**
 * Locks the run of a row an executor names. To an executor an unknown run holds no such task,
 * so it is answered with the operation's own code.
 * @throws AirlockError task_not_found when the workspace has no such run.
 */
export async function lockTaskRun(
  tx: Tx,
  principal: Principal,
  address: TaskAddress,
): Promise<RunTable> {
  const run = await lockRunIfAny(tx, principal.workspace_id, address.runId);
  if (!run) {
    throw new AirlockError('task_not_found', `no task ${address.taskKey} in run ${address.runId}`);
  }
  return run;
}

/**
 * A row an executor may see: read now, or taken from a read sent ahead (see `readAhead`).
 * @throws AirlockError task_not_found when there is no such row, or its run is another application's.
 */
export async function visibleTask(
  tx: Tx,
  principal: Principal,
  address: TaskAddress,
  ahead?: Promise<VisibleRow[]>,
): Promise<VisibleTask> {
  const rows = ahead ? await ahead : await readVisibleTask(tx, rowAddress(principal, address));
  const row = rows[0];
  const app = principal.agent_application_id;
  if (!row || (app && row.run_app !== null && row.run_app !== app)) {
    throw new AirlockError('task_not_found', `no task ${address.taskKey} in run ${address.runId}`);
  }
  const { run_app: _ignored, ...task } = row;
  return task;
}

/**
 * Refuses a row no executor claims or commits: a summarizer row, a park or a question.
 * @throws AirlockError not_claimable_kind.
 */
export function refuseDecisionRows(row: TaskTable): void {
  if (row.kind === 'summary') {
    throw new AirlockError(
      'not_claimable_kind',
      `task ${row.key} is a summarizer row: the kernel asks the model provider itself`,
    );
  }
  if (row.state === 'needs_approval' || row.state === 'awaiting_input' || row.kind === 'ask') {
    throw new AirlockError(
      'not_claimable_kind',
      `task ${row.key} is an ${inboxKind(row)} row: a person decides it on the member plane`,
    );
  }
}

/** The lease a claim or heartbeat gets: the one asked for (else the default), at most the longest. */
export function leaseFor(ctx: KernelContext, requested: number | undefined): number {
  return Math.min(requested ?? ctx.defaultLeaseMs, ctx.maxLeaseMs);
}

/** What a move of an executor's row needs of its run. */
export function runOf(row: { run_id: string; workspace_id: string; run_state: RunState }) {
  return { id: row.run_id, workspace_id: row.workspace_id, state: row.run_state };
}

/**
 * Refuses a claim whose row moved between its read and its write (on
 * PostgreSQL another kernel's claim committed first): read again, the row
 * says what it is now, as a claim that came later hears.
 * @throws AirlockError not_claimable, or the machine's refusal of the row as it is now.
 */
export async function refuseMovedRow(
  tx: Tx,
  principal: Principal,
  address: TaskAddress,
): Promise<never> {
  const now = await visibleTask(tx, principal, address);
  checkMove('claim', now, runOf(now));
  throw new AirlockError(
    'not_claimable',
    `task ${address.taskKey} changed while it was being claimed; read it again`,
  );
}
