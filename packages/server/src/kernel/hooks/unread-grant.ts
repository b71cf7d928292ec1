import type { HookedAnswer } from '@airlock/core';
import type { Principal } from '../../store/accounts.js';
import { findTask } from '../../store/tasks.js';
import type { KernelContext } from '../context.js';
import { moveTask } from '../machines/move-task.js';
import { lockRun } from '../machines/run-state.js';

/**
 * Gives back a call granted to a hook request whose client was gone before
 * the grant could be written to it (the agent's hook timed out, its user
 * pressed Esc), or whose reply refused it all the same (a held request's
 * look answered about another turn's row): the agent never read the grant,
 * so it never ran the call.
 * The row's claim ends and the row is runnable again, approved and not
 * granted, so the identical call made again is granted once, on this row,
 * instead of parking a second time. Does nothing unless `answer` granted a
 * call, or when the row moved meanwhile.
 */
export async function releaseUnreadGrant(
  ctx: KernelContext,
  principal: Principal,
  answer: Pick<HookedAnswer, 'verdict' | 'run_id' | 'task_key' | 'task_state'>,
): Promise<void> {
  if (answer.verdict !== 'allow' || answer.task_state !== 'claimed') return;
  const { run_id: runId, task_key: key } = answer;
  if (runId === null || key === null) return;
  await ctx.store.transaction(async (tx) => {
    const run = await lockRun(tx, principal.workspace_id, runId);
    if (run.state !== 'running') return;
    const row = await findTask(tx, runId, key);
    // A claimed call of the agent's model is only ever the agent's: nothing else moved it since.
    if (row?.state !== 'claimed' || row.origin !== 'model' || row.claim_id === null) return;
    await moveTask(
      tx,
      {
        verb: 'lease_lapse',
        run,
        key,
        to: 'runnable',
        match: { claim_id: row.claim_id },
        set: { claim_id: null, lease_until: null },
        event: { type: 'task.lease_expired' },
        principal: 'kernel',
      },
      { quiet: true },
    );
  });
}
