import { sql, type Updateable } from 'kysely';
import { type Principal, principalName } from '../store/accounts.js';
import { newId } from '../store/ids.js';
import type { TaskTable } from '../store/schema.js';
import type { Tx } from '../store/store.js';
import { takeClaimLocks } from './claim-serialization.js';
import type { KernelContext } from './context.js';
import type { TaskAddress } from './decisions.js';
import { AirlockError } from './errors.js';
import { checkHookCommit } from './hooks.js';
import { lockRun, settleRun } from './run-state.js';
import { type TaskView, taskView } from './views.js';

/** One row on an executor's inbox: work to claim (`tool`) or a decision to watch (`approval`, `ask`). */
export interface InboxItem {
  kind: 'tool' | 'hook' | 'approval' | 'ask';
  run_id: string;
  task_key: string;
  state: string;
  tool_name: string;
  tool_input: unknown;
  effect_profile: unknown;
  deadline_at: number | null;
  created_at: number;
}

function inboxKind(row: Pick<TaskTable, 'state' | 'kind'>): InboxItem['kind'] {
  if (row.state === 'needs_approval') return 'approval';
  if (row.state === 'awaiting_input' || row.kind === 'ask') return 'ask';
  return row.kind === 'hook' ? 'hook' : 'tool';
}

/** Lists an executor's inbox: runnable tool rows, and parks and questions addressed to its application. */
export async function listInbox(
  ctx: KernelContext,
  principal: Principal,
  options: { limit: number },
): Promise<InboxItem[]> {
  const app = principal.agent_application_id;
  const rows = await ctx.store.db
    .selectFrom('tasks')
    .innerJoin('runs', 'runs.id', 'tasks.run_id')
    .selectAll('tasks')
    .where('tasks.workspace_id', '=', principal.workspace_id)
    .where((eb) => {
      const mine = app
        ? eb.or([
            eb('runs.agent_application_id', 'is', null),
            eb('runs.agent_application_id', '=', app),
          ])
        : eb.val(true);
      const decisions = app
        ? eb.and([
            eb('tasks.state', 'in', [sql.lit('needs_approval'), sql.lit('awaiting_input')]),
            eb('tasks.addressee', '=', app),
          ])
        : eb.val(false);
      const work = eb.and([
        eb('tasks.state', '=', sql.lit('runnable')),
        eb('tasks.kind', '!=', sql.lit('summary')),
        mine,
      ]);
      return eb.or([work, decisions]);
    })
    .orderBy('tasks.created_at')
    .limit(options.limit)
    .execute();
  return rows.map((row) => ({
    kind: inboxKind(row),
    run_id: row.run_id,
    task_key: row.key,
    state: row.state,
    tool_name: row.tool_name,
    tool_input: JSON.parse(row.tool_input),
    effect_profile: row.effect_profile ? JSON.parse(row.effect_profile) : null,
    deadline_at: row.deadline_at,
    created_at: row.created_at,
  }));
}

async function visibleTask(tx: Tx, principal: Principal, address: TaskAddress): Promise<TaskTable> {
  const row = await tx.db
    .selectFrom('tasks')
    .innerJoin('runs', 'runs.id', 'tasks.run_id')
    .selectAll('tasks')
    .select('runs.agent_application_id as run_app')
    .where('tasks.run_id', '=', address.runId)
    .where('tasks.key', '=', address.taskKey)
    .where('tasks.workspace_id', '=', principal.workspace_id)
    .executeTakeFirst();
  const app = principal.agent_application_id;
  if (!row || (app && row.run_app !== null && row.run_app !== app)) {
    throw new AirlockError('task_not_found', `no task ${address.taskKey} in run ${address.runId}`);
  }
  const { run_app: _ignored, ...task } = row;
  return task;
}

function refuseDecisionRows(row: TaskTable): void {
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

/**
 * Updates a claimed row only while the claim still holds it.
 * @throws AirlockError lease_lost when the lease lapsed or another claim took the row.
 */
async function updateHeldRow(
  tx: Tx,
  row: Pick<TaskTable, 'run_id' | 'key'>,
  claimId: string,
  change: Updateable<TaskTable>,
): Promise<void> {
  const updated = await tx.db
    .updateTable('tasks')
    .set(change)
    .where('run_id', '=', row.run_id)
    .where('key', '=', row.key)
    .where('state', '=', 'claimed')
    .where('claim_id', '=', claimId)
    .executeTakeFirst();
  if (Number(updated.numUpdatedRows) !== 1) {
    throw new AirlockError('lease_lost', `claim ${claimId} no longer holds task ${row.key}`);
  }
}

function leaseFor(ctx: KernelContext, requested: number | undefined): number {
  return Math.min(requested ?? ctx.defaultLeaseMs, ctx.maxLeaseMs);
}

/** A claim: the row and the claim id that heartbeats and the commit must present. */
export interface Claim {
  claim_id: string;
  lease_until: number;
  task: TaskView;
}

async function takeRow(
  tx: Tx,
  row: TaskTable,
  principal: Principal,
  leaseMs: number,
): Promise<Claim | null> {
  // Sequential tools and file mutations wait while another claim holds their tool or path.
  if ((await takeClaimLocks(tx, row)) !== null) return null;
  const claimId = newId('claim');
  const change = {
    state: 'claimed',
    claim_id: claimId,
    lease_until: tx.now + leaseMs,
    attempts: row.attempts + 1,
    updated_at: tx.now,
  };
  const updated = await tx.db
    .updateTable('tasks')
    .set(change)
    .where('run_id', '=', row.run_id)
    .where('key', '=', row.key)
    .where('state', '=', 'runnable')
    .executeTakeFirst();
  if (Number(updated.numUpdatedRows) !== 1) return null;
  tx.emit({
    workspace_id: row.workspace_id,
    run_id: row.run_id,
    task_key: row.key,
    type: 'task.claimed',
    data: { state: 'claimed', lease_until: change.lease_until, attempt: change.attempts },
    principal: principalName(principal),
  });
  const claimed = { ...row, ...change };
  return { claim_id: claimId, lease_until: change.lease_until, task: taskView(claimed) };
}

/**
 * Claims one runnable row with a lease.
 * @throws AirlockError not_claimable_kind for approval/ask rows, not_claimable when not runnable.
 */
export async function claimTask(
  ctx: KernelContext,
  principal: Principal,
  address: TaskAddress,
  options: { lease_ms?: number | undefined },
): Promise<Claim> {
  return ctx.store.transaction(async (tx) => {
    const row = await visibleTask(tx, principal, address);
    refuseDecisionRows(row);
    const claim =
      row.state === 'runnable'
        ? await takeRow(tx, row, principal, leaseFor(ctx, options.lease_ms))
        : null;
    if (!claim) {
      const why =
        row.state === 'runnable'
          ? 'runnable, but another claimed call holds its sequential tool or one of its paths'
          : row.state;
      throw new AirlockError('not_claimable', `task ${row.key} is ${why}`);
    }
    return claim;
  });
}

/**
 * Claims the oldest runnable row visible to the executor, or returns null.
 * On PostgreSQL, candidates are read with FOR UPDATE SKIP LOCKED so several
 * kernels hand out different rows.
 */
export async function claimNext(
  ctx: KernelContext,
  principal: Principal,
  options: { lease_ms?: number | undefined; tool_names?: string[] | undefined },
): Promise<Claim | null> {
  const app = principal.agent_application_id;
  return ctx.store.transaction(async (tx) => {
    const candidates = await tx.db
      .selectFrom('tasks')
      .selectAll('tasks')
      .where('tasks.workspace_id', '=', principal.workspace_id)
      .where('tasks.state', '=', sql.lit('runnable'))
      .where('tasks.kind', '!=', sql.lit('summary'))
      .$if(Boolean(options.tool_names?.length), (qb) =>
        qb.where('tasks.tool_name', 'in', options.tool_names!),
      )
      .$if(app !== null, (qb) =>
        qb.where((eb) =>
          eb.exists(
            eb
              .selectFrom('runs')
              .select('runs.id')
              .whereRef('runs.id', '=', 'tasks.run_id')
              .where((e) =>
                e.or([
                  e('runs.agent_application_id', 'is', null),
                  e('runs.agent_application_id', '=', app),
                ]),
              ),
          ),
        ),
      )
      .orderBy('tasks.created_at')
      .limit(8)
      .$if(tx.dialect === 'postgres', (qb) => qb.forUpdate().skipLocked())
      .execute();
    for (const row of candidates) {
      const claim = await takeRow(tx, row, principal, leaseFor(ctx, options.lease_ms));
      if (claim) return claim;
    }
    return null;
  });
}

/**
 * Extends a claim's lease.
 * @throws AirlockError lease_lost when the claim is no longer the row's.
 */
export async function heartbeat(
  ctx: KernelContext,
  principal: Principal,
  address: TaskAddress & { claimId: string; leaseMs?: number | undefined },
): Promise<{ lease_until: number }> {
  return ctx.store.transaction(async (tx) => {
    const row = await visibleTask(tx, principal, address);
    const leaseUntil = tx.now + leaseFor(ctx, address.leaseMs);
    await updateHeldRow(tx, row, address.claimId, { lease_until: leaseUntil, updated_at: tx.now });
    return { lease_until: leaseUntil };
  });
}

/**
 * Commits a claimed row's result or failure; a failure then follows the row's on_failure.
 * A hook row's result is `{structured_content}` holding a decision core
 * accepts for its event; anything else commits as failed `invalid_hook_result`.
 * @throws AirlockError not_claimable_kind, lease_lost.
 */
export async function commitTask(
  ctx: KernelContext,
  principal: Principal,
  address: TaskAddress & {
    claimId: string;
    outcome: 'succeeded' | 'failed';
    result?: unknown;
    error?: { code: string; detail: string } | undefined;
  },
): Promise<TaskView> {
  return ctx.store.transaction(async (tx) => {
    const run = await lockRun(tx, principal.workspace_id, address.runId);
    const row = await visibleTask(tx, principal, address);
    refuseDecisionRows(row);
    // A hook's result is core-checked here: an invalid decision is a failure, never an ending.
    const invalid =
      row.kind === 'hook' && address.outcome === 'succeeded'
        ? checkHookCommit(row, address.result)
        : null;
    const failed = address.outcome === 'failed' || invalid !== null;
    const error = invalid ?? address.error;
    const change = {
      state: failed ? ('failed' as const) : ('succeeded' as const),
      result: JSON.stringify(address.result ?? null),
      error_code: failed ? (error?.code ?? 'tool_failed') : null,
      error_detail: failed ? (error?.detail ?? 'the tool failed') : null,
      lease_until: null,
      deadline_at: null,
      updated_at: tx.now,
    };
    await updateHeldRow(tx, row, address.claimId, change);
    tx.emit({
      workspace_id: row.workspace_id,
      run_id: row.run_id,
      task_key: row.key,
      type: failed ? 'task.failed' : 'task.succeeded',
      data: {
        state: change.state,
        ...(failed ? { error: { code: change.error_code, detail: change.error_detail } } : {}),
      },
      principal: principalName(principal),
    });
    await settleRun(ctx, tx, run);
    return taskView({ ...row, ...change });
  });
}
