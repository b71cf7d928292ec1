import { sql } from 'kysely';
import type { KernelContext } from './context.js';
import { expireHooks } from './hook-clock.js';
import { QUESTION_EXPIRED_TEXT } from './questions.js';
import { stopRunsOfRemovedApplications } from './revocation.js';
import { lockRun, settleRun } from './run-state.js';
import { APPROVAL_EXPIRED_TEXT } from './task-states.js';

const BATCH = 200;

/** What one sweep did. */
export interface SweepReport {
  expired: number;
  leasesLapsed: number;
  runsResumed: number;
}

/** One kind of waiting row a clock ends. */
interface WaitingClock {
  state: 'needs_approval' | 'awaiting_input';
  code: string;
  detail: string;
  event: string;
  /** True when expiry always holds the run for a person, whatever the row's on_failure. */
  hold: boolean;
}

const PARK_CLOCK: WaitingClock = {
  state: 'needs_approval',
  code: 'approval_expired',
  detail: APPROVAL_EXPIRED_TEXT,
  event: 'task.expired',
  hold: false,
};

// An unanswered question is never a success: it rests on a hold until retry or abandon.
const QUESTION_CLOCK: WaitingClock = {
  state: 'awaiting_input',
  code: 'question_expired',
  detail: QUESTION_EXPIRED_TEXT,
  event: 'task.expired',
  hold: true,
};

/**
 * Fires every clock of one kind whose deadline has passed: the row becomes
 * `timed_out` with the clock's code and follows its on_failure. The UPDATE is
 * conditional, so two kernels sweeping one database fire each clock once.
 */
async function expireWaiting(ctx: KernelContext, clock: WaitingClock): Promise<number> {
  const now = ctx.store.now();
  const due = await ctx.store.db
    .selectFrom('tasks')
    .select(['run_id', 'workspace_id', 'key'])
    .where('state', '=', sql.lit(clock.state))
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
          error_code: clock.code,
          error_detail: clock.detail,
          deadline_at: null,
          decided_by: 'kernel',
          updated_at: tx.now,
          ...(clock.hold ? { on_failure: 'hold' as const } : {}),
        })
        .where('run_id', '=', task.run_id)
        .where('key', '=', task.key)
        .where('state', '=', clock.state)
        .where('deadline_at', '<=', tx.now)
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) !== 1) return 0;
      tx.emit({
        workspace_id: task.workspace_id,
        run_id: task.run_id,
        task_key: task.key,
        type: clock.event,
        data: { state: 'timed_out', error: { code: clock.code, detail: clock.detail } },
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
  const expired =
    (await expireWaiting(ctx, PARK_CLOCK)) +
    (await expireWaiting(ctx, QUESTION_CLOCK)) +
    (await expireHooks(ctx));
  const leasesLapsed = await lapseLeases(ctx);
  const runsResumed = await resumeRuns(ctx);
  await stopRunsOfRemovedApplications(ctx);
  return { expired, leasesLapsed, runsResumed };
}
