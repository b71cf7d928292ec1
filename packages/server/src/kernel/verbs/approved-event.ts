import type { Remembered } from '@airlock/core';
import type { RunTable, TaskTable } from '../../store/schema.js';
import type { Tx } from '../../store/store.js';
import { setTaskDeadline } from '../../store/tasks.js';
import { moveTask } from '../machines/move-task.js';
import { hookTimeoutMs } from './decisions.js';

/** Who approved a row that just moved to runnable, as its `task.approved` event says it. */
export interface ApprovedBy {
  decided_by: string;
  /** Every standing approval's member, when a quorum of several approved it. */
  approved_by?: string[];
  remembered?: Remembered;
  /** What approved it other than the decider's own verb (`approval policy version N`, a link). */
  via?: string;
}

/**
 * Moves a parked row to runnable for the member whose approval completed it, its deadline
 * cleared; the event is {@link announceApproved}'s.
 */
export function moveApproved(
  tx: Tx,
  run: RunTable,
  row: TaskTable,
  principal: string,
): Promise<TaskTable> {
  return moveTask(tx, {
    verb: 'approve',
    run,
    key: row.key,
    to: 'runnable',
    from: row.state,
    set: { deadline_at: null, decided_by: principal },
    event: null,
    principal,
  });
}

/**
 * Starts an approved hook row's timeout (as if it had been granted now) and emits the row's
 * `task.approved`: the one ending of an approval, whether a member's verb or a policy change
 * completed the quorum.
 */
export async function announceApproved(
  tx: Tx,
  run: RunTable,
  moved: TaskTable,
  by: ApprovedBy,
): Promise<void> {
  if (moved.kind === 'hook') {
    moved.deadline_at = tx.now + hookTimeoutMs(run, moved);
    await setTaskDeadline(tx, moved);
  }
  tx.emit({
    workspace_id: run.workspace_id,
    run_id: run.id,
    task_key: moved.key,
    type: 'task.approved',
    data: {
      state: moved.state,
      decided_by: by.decided_by,
      ...(by.approved_by ? { approved_by: by.approved_by } : {}),
      ...(moved.kind === 'tool' ? {} : { kind: moved.kind }),
      ...(by.remembered ? { remembered: by.remembered } : {}),
      ...(by.via ? { via: by.via } : {}),
    },
    principal: by.decided_by,
  });
}
