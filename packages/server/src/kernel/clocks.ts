import { sql } from 'kysely';
import type { KernelContext } from './context.js';
import { lockRun, settleRun } from './run-state.js';
import { APPROVAL_EXPIRED_TEXT } from './task-states.js';

const BATCH = 200;

/** What one sweep did. */
export interface SweepReport {
  expired: number;
  leasesLapsed: number;
  runsResumed: number;
}

/**
 * Fires every park clock whose deadline has passed: the row becomes
 * `timed_out` / `approval_expired` and follows its on_failure. The UPDATE is
 * conditional, so two kernels sweeping one database fire each clock once.
 */
async function expireParks(ctx: KernelContext): Promise<number> {
  const now = ctx.store.now();
  const due = await ctx.store.db
    .selectFrom('tasks')
    .select(['run_id', 'workspace_id', 'key'])
    .where('state', '=', sql.lit('needs_approval'))
    .where('deadline_at', '<=', now)
    .orderBy('deadline_at')
    .limit(BATCH)
    .execute();
  let fired = 0;
  for (const task of due) {
    fired += await ctx.store.transaction(async (tx) => {
      const run = await lockRun(tx, task.workspace_id, task.run_id);
      const updated = await tx.db
        .updateTable('tasks')
        .set({
          state: 'timed_out',
          error_code: 'approval_expired',
          error_detail: APPROVAL_EXPIRED_TEXT,
          deadline_at: null,
          decided_by: 'kernel',
          updated_at: tx.now,
        })
        .where('run_id', '=', task.run_id)
        .where('key', '=', task.key)
        .where('state', '=', 'needs_approval')
        .where('deadline_at', '<=', tx.now)
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) !== 1) return 0;
      tx.emit({
        workspace_id: task.workspace_id,
        run_id: task.run_id,
        task_key: task.key,
        type: 'task.expired',
        data: {
          state: 'timed_out',
          error: { code: 'approval_expired', detail: APPROVAL_EXPIRED_TEXT },
        },
        principal: 'kernel',
      });
      await settleRun(ctx, tx, run);
      return 1;
    });
  }
  return fired;
}

/** Returns every claimed row whose lease lapsed to runnable, so another executor can claim it. */
async function lapseLeases(ctx: KernelContext): Promise<number> {
  const now = ctx.store.now();
  const due = await ctx.store.db
    .selectFrom('tasks')
    .select(['run_id', 'workspace_id', 'key', 'claim_id'])
    .where('state', '=', sql.lit('claimed'))
    .where('lease_until', '<=', now)
    .limit(BATCH)
    .execute();
  let lapsed = 0;
  for (const task of due) {
    lapsed += await ctx.store.transaction(async (tx) => {
      const updated = await tx.db
        .updateTable('tasks')
        .set({ state: 'runnable', claim_id: null, lease_until: null, updated_at: tx.now })
        .where('run_id', '=', task.run_id)
        .where('key', '=', task.key)
        .where('state', '=', 'claimed')
        .where('claim_id', '=', task.claim_id)
        .where('lease_until', '<=', tx.now)
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) !== 1) return 0;
      tx.emit({
        workspace_id: task.workspace_id,
        run_id: task.run_id,
        task_key: task.key,
        type: 'task.lease_expired',
        data: { state: 'runnable' },
        principal: 'kernel',
      });
      return 1;
    });
  }
  return lapsed;
}

/** Finds runs whose next round is due and unowned (after a restart, or another kernel's crash). */
async function resumeRuns(ctx: KernelContext): Promise<number> {
  const now = ctx.store.now();
  const due = await ctx.store.db
    .selectFrom('runs')
    .select('id')
    .where('phase', '=', sql.lit('model'))
    .where('state', '=', 'running')
    .where((eb) => eb.or([eb('model_lease_until', 'is', null), eb('model_lease_until', '<', now)]))
    .limit(BATCH)
    .execute();
  for (const run of due) ctx.scheduleDrive(run.id);
  return due.length;
}

/** One pass of every clock the kernel keeps. */
export async function sweepOnce(ctx: KernelContext): Promise<SweepReport> {
  const expired = await expireParks(ctx);
  const leasesLapsed = await lapseLeases(ctx);
  const runsResumed = await resumeRuns(ctx);
  return { expired, leasesLapsed, runsResumed };
}
