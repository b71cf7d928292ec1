import { listClaimedModelRows } from '../../store/hooked-rows.js';
import type { RunTable, TaskTable } from '../../store/schema.js';
import type { Tx } from '../../store/store.js';
import { cancelRunRows, writeTaskMove } from '../../store/task-moves.js';
import { OUTCOME_UNKNOWN, verbRule } from './task-machine.js';

/** What the story says of a hooked agent's call its run ended under. */
const MAY_HAVE_RUN =
  'the run ended while the agent held this call, before it reported running it: it may have run';

/**
 * Settles a hooked agent's own call it still holds (claimed) when its run
 * ends: the agent may be running it on its own machine, so the row fails
 * `outcome_unknown` ("may have run"), never `canceled`; the agent's report,
 * should it come, records what ran (`late_report`). Returns false when the
 * row was no longer held under that claim. Also the clock's end of such a
 * claim found on an ended run (one a stop left claimed before stops settled it). The row keeps who granted it
 * (`decided_by`); its `task.failed` names who ended the run.
 */
export async function settleAgentsClaim(
  tx: Tx,
  run: Pick<RunTable, 'id' | 'workspace_id'>,
  row: Pick<TaskTable, 'key' | 'claim_id'>,
  principal: string | null,
): Promise<boolean> {
  const error = { code: OUTCOME_UNKNOWN, detail: MAY_HAVE_RUN };
  // The verb's own write (moveTask would close an import circle through the run machine).
  const settle = verbRule('settle_held_call');
  const moved = await writeTaskMove(tx, {
    verb: 'settle_held_call',
    runId: run.id,
    key: row.key,
    change: {
      state: 'failed',
      error_code: error.code,
      error_detail: error.detail,
      lease_until: null,
      deadline_at: null,
      updated_at: tx.now,
    },
    from: settle.from,
    kinds: settle.kinds ?? [],
    claimId: row.claim_id ?? '',
  });
  if (!moved) return false;
  tx.emit({
    workspace_id: run.workspace_id,
    run_id: run.id,
    task_key: row.key,
    type: 'task.failed',
    data: { error, state: 'failed' },
    principal,
  });
  return true;
}

/**
 * Cancels a run's outstanding rows (a stop, an abandon, the end of the run):
 * every unstarted row, and hook or summarizer work even mid-claim, since a
 * hook cannot keep a stopped run alive. A hooked session's call its agent
 * holds is not canceled but settled "may have run" ({@link settleAgentsClaim}).
 * An executor's claimed row stays claimed: its executor commits what ran.
 * Returns the canceled keys.
 */
export async function cancelOutstanding(
  tx: Tx,
  run: Pick<RunTable, 'id' | 'workspace_id' | 'state' | 'loop'>,
  principal: string | null,
): Promise<string[]> {
  const cancel = verbRule('cancel');
  const unstarted = cancel.from.filter((state) => state !== 'claimed');
  const canceled = await cancelRunRows(tx, {
    runId: run.id,
    unstarted,
    claimedKinds: ['hook', 'summary'],
    principal,
  });
  for (const key of canceled) {
    tx.emit({
      workspace_id: run.workspace_id,
      run_id: run.id,
      task_key: key,
      type: 'task.canceled',
      data: { state: 'canceled' },
      principal,
    });
  }
  if (run.loop === 'hooked') {
    for (const row of await listClaimedModelRows(tx, run.id)) {
      if (row.kind === 'tool') await settleAgentsClaim(tx, run, row, principal);
    }
  }
  return canceled;
}
