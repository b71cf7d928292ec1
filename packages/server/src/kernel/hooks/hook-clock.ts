import { hookRowsDue } from '../../store/tasks.js';
import type { KernelContext } from '../context.js';
import { moveTask } from '../machines/move-task.js';
import { lockRun } from '../machines/run-state.js';

const BATCH = 200;

/**
 * Fails every hook row whose `timeout_ms` passed before a result was
 * committed (`timed_out` / `hook_timed_out`): a visible failure and a hold.
 * A claim still running loses its lease, so a late commit is refused.
 */
export async function expireHooks(ctx: KernelContext): Promise<number> {
  const now = ctx.store.now();
  const due = await hookRowsDue(ctx.store, { now, limit: BATCH });
  let fired = 0;
  for (const task of due) {
    fired += await ctx.store.transaction(async (tx) => {
      const run = await lockRun(tx, task.workspace_id, task.run_id);
      const detail = 'the hook did not commit a result within its timeout_ms';
      const moved = await moveTask(
        tx,
        {
          verb: 'hook_timeout',
          run,
          key: task.key,
          to: 'timed_out',
          due: 'deadline_at',
          set: {
            error_code: 'hook_timed_out',
            error_detail: detail,
            deadline_at: null,
            claim_id: null,
            lease_until: null,
            decided_by: 'kernel',
          },
          event: { type: 'task.expired', data: { error: { code: 'hook_timed_out', detail } } },
          principal: 'kernel',
          settle: { ctx, run },
        },
        { quiet: true },
      );
      return moved ? 1 : 0;
    });
  }
  return fired;
}
