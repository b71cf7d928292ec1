import { type Principal, principalName } from '../../store/accounts.js';
import type { KernelContext } from '../context.js';
import { moveTask } from '../machines/move-task.js';
import { type TaskView, taskView } from '../views.js';
import type { TaskAddress } from './decisions.js';
import { refuseDecisionRows, runOf, visibleTask } from './executor-rows.js';

/**
 * Hands back a claim whose tool its executor never started: the row is
 * runnable again at once (claim and lease cleared, `task.released` in its
 * history), so the next executor runs it,
 * where a lapse would fail a tool the manifest does not declare safe to run
 * again. A repeat finds the row runnable and unclaimed and answers it as it
 * is, changing nothing.
 * @throws AirlockError task_not_found, run_not_running when the run ended, lease_lost when
 *   the claim no longer holds the row (committed, lapsed and failed, or claimed again).
 */
export async function releaseClaim(
  ctx: KernelContext,
  principal: Principal,
  address: TaskAddress & { claimId: string },
): Promise<TaskView> {
  return ctx.store.transaction(async (tx) => {
    const row = await visibleTask(tx, principal, address);
    refuseDecisionRows(row);
    if (row.state === 'runnable' && row.claim_id === null && row.run_state === 'running') {
      return taskView(row);
    }
    const released = await moveTask(tx, {
      verb: 'release',
      run: runOf(row),
      key: row.key,
      to: 'runnable',
      match: { claim_id: address.claimId },
      set: { claim_id: null, lease_until: null },
      event: { type: 'task.released' },
      principal: principalName(principal),
    });
    return taskView(released);
  });
}
