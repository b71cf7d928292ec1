import type { RunTable } from '../../store/schema.js';
import type { Tx } from '../../store/store.js';
import { cancelRunRows } from '../../store/task-moves.js';
import { verbRule } from './task-machine.js';

/**
 * Cancels a run's outstanding rows (a stop, an abandon, the end of the run):
 * every unstarted row, and hook or summarizer work even mid-claim, since a
 * hook cannot keep a stopped run alive. Returns the canceled keys.
 */
export async function cancelOutstanding(
  tx: Tx,
  run: Pick<RunTable, 'id' | 'workspace_id'>,
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
  return canceled;
}
