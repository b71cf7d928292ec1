import type { RunTable } from '../store/schema.js';
import type { Tx } from '../store/store.js';
import { forgetRows } from './fresh-runs.js';
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
  forgetRows(tx, run.id);
  const canceled = await tx.db
    .updateTable('tasks')
    .set({ state: 'canceled', deadline_at: null, updated_at: tx.now, decided_by: principal })
    .where('run_id', '=', run.id)
    .where((eb) =>
      eb.or([
        eb('state', 'in', unstarted),
        eb.and([eb('state', '=', 'claimed'), eb('kind', 'in', ['hook', 'summary'])]),
      ]),
    )
    .returning('key')
    .execute();
  for (const { key } of canceled) {
    tx.emit({
      workspace_id: run.workspace_id,
      run_id: run.id,
      task_key: key,
      type: 'task.canceled',
      data: { state: 'canceled' },
      principal,
    });
  }
  return canceled.map((c) => c.key);
}
