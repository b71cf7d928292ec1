import { sql } from 'kysely';
import type { KernelContext } from './context.js';
import { lockRun, settleRun } from './run-state.js';

const BATCH = 200;

/**
 * Fails every hook row whose `timeout_ms` passed before a result was
 * committed (`timed_out` / `hook_timed_out`): a visible failure and a hold.
 * A claim still running loses its lease, so a late commit is refused.
 */
export async function expireHooks(ctx: KernelContext): Promise<number> {
  const now = ctx.store.now();
  const due = await ctx.store.db
    .selectFrom('tasks')
    .select(['run_id', 'workspace_id', 'key'])
    .where('kind', '=', sql.lit('hook'))
    .where('state', 'in', [sql.lit('runnable'), sql.lit('claimed')])
    .where('deadline_at', '<=', now)
    .limit(BATCH)
    .execute();
  let fired = 0;
  for (const task of due) {
    fired += await ctx.store.transaction(async (tx) => {
      const run = await lockRun(tx, task.workspace_id, task.run_id);
      const detail = 'the hook did not commit a result within its timeout_ms';
      const updated = await tx.db
        .updateTable('tasks')
        .set({
          state: 'timed_out',
          error_code: 'hook_timed_out',
          error_detail: detail,
          deadline_at: null,
          claim_id: null,
          lease_until: null,
          decided_by: 'kernel',
          updated_at: tx.now,
        })
        .where('run_id', '=', task.run_id)
        .where('key', '=', task.key)
        .where('state', 'in', ['runnable', 'claimed'])
        .where('deadline_at', '<=', tx.now)
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) !== 1) return 0;
      tx.emit({
        workspace_id: task.workspace_id,
        run_id: task.run_id,
        task_key: task.key,
        type: 'task.expired',
        data: { state: 'timed_out', error: { code: 'hook_timed_out', detail } },
        principal: 'kernel',
      });
      await settleRun(ctx, tx, run);
      return 1;
    });
  }
  return fired;
}
