import { type Principal, principalName } from '../../store/accounts.js';
import type { KernelContext } from '../context.js';
import { moveTask } from '../machines/move-task.js';
import { type TaskView, taskView } from '../views.js';
import type { TaskAddress } from './decisions.js';
import { lockTaskRun, refuseDecisionRows, visibleTask } from './executor-rows.js';

/**
 * Hands back a claim whose tool its executor never started: the row is
 * runnable again at once (claim and lease cleared, `task.released` in its
 * history), so the next executor runs it, where a lapse would fail a tool
 * the manifest does not declare safe to run again. On a run that ended the row is canceled instead: it was never run
 * and is never handed out again. A repeat finds the row runnable and
 * unclaimed and answers it as it is, changing nothing.
 * @throws AirlockError task_not_found, lease_lost when the claim no longer holds the row
 *   (committed, lapsed, canceled, or claimed again).
 */
export async function releaseClaim(
  ctx: KernelContext,
  principal: Principal,
  address: TaskAddress & { claimId: string },
): Promise<TaskView> {
  return ctx.store.transaction(async (tx) => {
    // The run's lock: a stop cannot end it between the read of its state and the move.
    const run = await lockTaskRun(tx, principal, address);
    const row = await visibleTask(tx, principal, address);
    refuseDecisionRows(row);
    if (row.state === 'runnable' && row.claim_id === null && run.state === 'running') {
      return taskView(row);
    }
    const principalText = principalName(principal);
    if (run.state !== 'running') {
      // Never handed out again, and known not to have run: canceled, not outcome_unknown.
      const canceled = await moveTask(tx, {
        verb: 'release',
        run,
        key: row.key,
        to: 'canceled',
        match: { claim_id: address.claimId },
        set: { claim_id: null, lease_until: null, deadline_at: null },
        event: { type: 'task.canceled' },
        principal: principalText,
      });
      return taskView(canceled);
    }
    const released = await moveTask(tx, {
      verb: 'release',
      run,
      key: row.key,
      to: 'runnable',
      match: { claim_id: address.claimId },
      set: { claim_id: null, lease_until: null },
      event: { type: 'task.released' },
      principal: principalText,
    });
    return taskView(released);
  });
}
