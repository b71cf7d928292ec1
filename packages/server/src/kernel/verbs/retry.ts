import { AirlockError } from '../../errors.js';
import { type Principal, principalName } from '../../store/accounts.js';
import type { KernelContext } from '../context.js';
import { retryRoute } from '../machines/retry-routes.js';
import { type ParkApprovals, parkApprovals } from '../stage/park-approvals.js';
import type { TaskView } from '../views.js';
import { hookTimeoutMs, memberMove, type TaskAddress } from './decisions.js';
import { rerunThroughStage } from './rerun-policy.js';
import { type StagedAgain, stageAgain } from './retry-stage.js';

/**
 * Retries a row that holds its run (on_failure hold), by the task machine's
 * retry route (RETRY_ROUTES): a declined or expired question waits for an
 * answer again; a row the approval stage or a person refused, or whose park
 * expired, crosses the stage again as it stands now (granted, parked afresh,
 * or refused again); anything else runs again once the stage let it again
 * (rerunThroughStage: refused now, the retry is refused; a call the stage
 * parks now, or people approved at a park, runs at once only where the
 * approval policy lets the retrier alone approve it, else it parks again).
 * A park or question waits with a fresh clock, decided by nobody yet.
 * @throws AirlockError task_not_waiting (409) when the row is not holding the run,
 *   retry_refused (409) for an invalid question or a call the stage refuses now
 *   (the hold stays; a member abandons or stops the run).
 */
export function retryTask(
  ctx: KernelContext,
  principal: Principal,
  address: TaskAddress,
): Promise<TaskView> {
  const who = principalName(principal);
  // What the policy asks of a row that parks again, and whether it can be met; read only for one.
  let waiting: ParkApprovals | null = null;
  // The stage's decision of a refused row crossing it again.
  let staged: StagedAgain | null = null;
  return memberMove(ctx, address, {
    verb: 'retry',
    principal: who,
    // The state machine's own check (the row must hold its run) runs on the read row.
    guard: async (row, tx, run) => {
      const route = retryRoute(row);
      if (route.route === 'refuse') {
        throw new AirlockError(
          'retry_refused',
          `task ${row.key} is a question that failed ${row.error_code}: it cannot be asked again unchanged; abandon or stop the run`,
        );
      }
      if (route.route === 'stage_again') {
        staged = await stageAgain(ctx, tx, run, row, who);
        if (staged.state === 'needs_approval') {
          waiting = await parkApprovals(tx, run, { ...row, ...staged.set });
        }
      }
      if (route.route === 'run_again') {
        // Running a failed call again crosses the stage again and answers to the approval policy.
        const parked = await rerunThroughStage(ctx, tx, { run, row, retrier: who });
        if (parked !== null) {
          staged = parked;
          waiting = await parkApprovals(tx, run, { ...row, ...parked.set });
        }
      }
    },
    change: (row, tx, run) => {
      const route = retryRoute(row!);
      // A park or a question waits again with a fresh clock, decided by nobody yet.
      const again = {
        deadline_at: tx.now + ctx.parkTtlMs,
        error_code: null,
        error_detail: null,
        decided_by: null,
      };
      if (route.route === 'ask_again')
        return { to: 'awaiting_input', set: { ...again, result: null } };
      const parked: StagedAgain | null = staged;
      if (parked?.state === 'needs_approval') {
        return { to: 'needs_approval', set: { ...again, ...parked.set } };
      }
      // Anything else (and a refused row the stage now grants) runs again; the retrier decided that.
      return {
        to: 'runnable',
        set: {
          claim_id: null,
          lease_until: null,
          // A retried hook gets its timeout afresh.
          deadline_at: row?.kind === 'hook' ? tx.now + hookTimeoutMs(run, row) : null,
          error_code: null,
          error_detail: null,
          result: null,
          decided_by: who,
          ...(parked ? parked.set : {}),
        },
      };
    },
    event: (row) => ({
      type: 'task.retried',
      data: {
        decided_by: who,
        kind: row.kind,
        deadline_at: row.deadline_at,
        addressee: row.addressee,
        ...(row.state === 'needs_approval' && waiting !== null ? waiting : {}),
      },
    }),
  });
}
