import { runsDueForModel } from '../../store/runs.js';
import { isAgentsOwnCall } from '../../store/task-inbox.js';
import { lapsedClaims, waitingRowsDue } from '../../store/tasks.js';
import type { KernelContext } from '../context.js';
import { expireHooks } from '../hooks/hook-clock.js';
import { lapseAgentClaim } from '../hooks/hooked-reports.js';
import { settleAgentsClaim } from '../machines/cancel-outstanding.js';
import { moveTask } from '../machines/move-task.js';
import { lockRun } from '../machines/run-state.js';
import { OUTCOME_UNKNOWN } from '../machines/task-machine.js';
import { APPROVAL_EXPIRED_TEXT } from '../machines/task-states.js';
import { QUESTION_EXPIRED_TEXT } from '../stage/questions.js';
import { stopRunsOfRemovedApplications } from '../verbs/revocation.js';
import { lapsedWithoutCommit, mayRunAgainAfterLapse } from './lapsed-claim.js';

const BATCH = 200;

/**
 * Runs each due row's unit in turn; a unit that fails is kept in `failures` and the rows after
 * it go on (one row whose unit kept failing held every row due after it, every sweep).
 */
async function eachDue<Row>(
  due: readonly Row[],
  failures: unknown[],
  unit: (row: Row) => Promise<number>,
): Promise<number> {
  let done = 0;
  for (const row of due) {
    try {
      done += await unit(row);
    } catch (error) {
      failures.push(error);
    }
  }
  return done;
}

/** What one sweep did. */
export interface SweepReport {
  expired: number;
  leasesLapsed: number;
  runsResumed: number;
}

/** One kind of waiting row a clock ends. */
interface WaitingClock {
  verb: 'park_expiry' | 'question_expiry';
  state: 'needs_approval' | 'awaiting_input';
  code: string;
  detail: string;
  /** True when expiry always holds the run for a person, whatever the row's on_failure. */
  hold: boolean;
}

const PARK_CLOCK: WaitingClock = {
  verb: 'park_expiry',
  state: 'needs_approval',
  code: 'approval_expired',
  detail: APPROVAL_EXPIRED_TEXT,
  hold: false,
};

// An unanswered question is never a success: it rests on a hold until retry or abandon.
const QUESTION_CLOCK: WaitingClock = {
  verb: 'question_expiry',
  state: 'awaiting_input',
  code: 'question_expired',
  detail: QUESTION_EXPIRED_TEXT,
  hold: true,
};

/**
 * Fires every clock of one kind whose deadline has passed: the row becomes
 * `timed_out` with the clock's code and follows its on_failure. The UPDATE is
 * conditional, so two kernels sweeping one database fire each clock once.
 */
async function expireWaiting(
  ctx: KernelContext,
  clock: WaitingClock,
  failures: unknown[],
): Promise<number> {
  const now = ctx.store.now();
  const due = await waitingRowsDue(ctx.store, { state: clock.state, now, limit: BATCH });
  return eachDue(due, failures, (task) =>
    ctx.store.transaction(async (tx) => {
      const run = await lockRun(tx, task.workspace_id, task.run_id);
      const moved = await moveTask(
        tx,
        {
          verb: clock.verb,
          run,
          key: task.key,
          to: 'timed_out',
          due: 'deadline_at',
          set: {
            error_code: clock.code,
            error_detail: clock.detail,
            deadline_at: null,
            decided_by: 'kernel',
            ...(clock.hold ? { on_failure: 'hold' as const } : {}),
          },
          event: {
            type: 'task.expired',
            data: { error: { code: clock.code, detail: clock.detail } },
          },
          principal: 'kernel',
          settle: { ctx, run },
        },
        { quiet: true },
      );
      return moved ? 1 : 0;
    }),
  );
}

/** Why an executor's call whose lease lapsed after its run ended fails outcome_unknown. */
const EXECUTOR_MAY_HAVE_RUN =
  'an executor held this call when its run ended and its lease lapsed without a commit: it may have run';

/**
 * What a lapsed claim's row is set to when it fails `outcome_unknown`: the claim goes with it,
 * so the executor's late commit is refused `lease_lost`.
 */
function mayHaveRun(detail: string) {
  const error = { code: OUTCOME_UNKNOWN, detail };
  return {
    set: {
      claim_id: null,
      lease_until: null,
      deadline_at: null,
      error_code: error.code,
      error_detail: error.detail,
      decided_by: 'kernel',
    },
    event: { type: 'task.failed', data: { error } },
  } as const;
}

/**
 * Ends every claim whose lease lapsed: an executor's row returns to
 * runnable, so another executor can claim it, unless the run's manifest
 * declares its tool other than read-only (see `mayRunAgainAfterLapse`: then
 * it fails `outcome_unknown`); a hooked agent's own call
 * fails `outcome_unknown` instead (see `lapseAgentClaim`), since the agent
 * alone runs it and may already have.
 */
async function lapseLeases(ctx: KernelContext, failures: unknown[]): Promise<number> {
  const now = ctx.store.now();
  const due = await lapsedClaims(ctx.store, { now, limit: BATCH });
  return eachDue(due, failures, (task) =>
    ctx.store.transaction(async (tx) => {
      const run = await lockRun(tx, task.workspace_id, task.run_id);
      const address = { workspaceId: task.workspace_id, runId: task.run_id, key: task.key };
      if (run.state !== 'running' && (await isAgentsOwnCall(tx, address))) {
        // A hooked agent ran it, or not: it may have run, as at a stop.
        return (await settleAgentsClaim(tx, run, task, 'kernel')) ? 1 : 0;
      }
      if (run.state !== 'running') {
        // A lapsed claim on an ended run is never handed out again. Its executor took the call
        // and never committed: it may have run, so the row fails outcome_unknown (never
        // "canceled", which says it did not). The claim goes, so a late commit is lease_lost.
        const settled = await moveTask(
          tx,
          {
            verb: 'settle_held_call',
            run,
            key: task.key,
            to: 'failed',
            from: 'claimed',
            match: { claim_id: task.claim_id ?? '' },
            due: 'lease_until',
            ...mayHaveRun(EXECUTOR_MAY_HAVE_RUN),
            principal: 'kernel',
          },
          { quiet: true },
        );
        return settled ? 1 : 0;
      }
      if (await isAgentsOwnCall(tx, address)) {
        return (await lapseAgentClaim(ctx, tx, run, task)) ? 1 : 0;
      }
      if (!mayRunAgainAfterLapse(run, task)) {
        const failed = await moveTask(tx, {
          verb: 'lease_lapse',
          run,
          key: task.key,
          to: 'failed',
          match: { claim_id: task.claim_id ?? '' },
          due: 'lease_until',
          ...mayHaveRun(lapsedWithoutCommit(task.resolved_tool_name ?? task.tool_name)),
          principal: 'kernel',
          settle: { ctx, run },
        });
        return failed ? 1 : 0;
      }
      const moved = await moveTask(
        tx,
        {
          verb: 'lease_lapse',
          run,
          key: task.key,
          to: 'runnable',
          match: { claim_id: task.claim_id ?? '' },
          due: 'lease_until',
          set: { claim_id: null, lease_until: null },
          event: { type: 'task.lease_expired' },
          principal: 'kernel',
        },
        { quiet: true },
      );
      return moved ? 1 : 0;
    }),
  );
}

/** Finds runs whose next round is due and unowned (after a restart, or another kernel's crash). */
async function resumeRuns(ctx: KernelContext): Promise<number> {
  const now = ctx.store.now();
  const due = await runsDueForModel(ctx.store, { now, limit: BATCH });
  for (const runId of due) ctx.scheduleDrive(runId);
  return due.length;
}

/**
 * One pass of every clock the kernel keeps. A clock, or one row's unit, that fails does not
 * hold the others: each runs, and the first failure is thrown once all have.
 * @throws the first failure of the pass, after every clock ran.
 */
export async function sweepOnce(ctx: KernelContext): Promise<SweepReport> {
  const failures: unknown[] = [];
  const attempt = async (clock: () => Promise<number>): Promise<number> => {
    try {
      return await clock();
    } catch (error) {
      failures.push(error);
      return 0;
    }
  };
  const expired =
    (await attempt(() => expireWaiting(ctx, PARK_CLOCK, failures))) +
    (await attempt(() => expireWaiting(ctx, QUESTION_CLOCK, failures))) +
    (await attempt(() => expireHooks(ctx)));
  const leasesLapsed = await attempt(() => lapseLeases(ctx, failures));
  const runsResumed = await attempt(() => resumeRuns(ctx));
  await attempt(() => stopRunsOfRemovedApplications(ctx));
  if (failures.length > 0) throw failures[0];
  return { expired, leasesLapsed, runsResumed };
}
