import { taskVersion } from '../kernel/views.js';
import type { DeliveryRow } from '../store/notifications.js';
import { principalRoster } from '../store/principal-roster.js';
import type { Reader } from '../store/reader.js';
import { findTask } from '../store/tasks.js';
import { whatBecame } from './link-standing.js';
import type { NotificationPayload } from './payload.js';

/** What a notice's message says of a call whose row the store no longer holds. */
export const CALL_GONE =
  'This call is no longer in Airlock (its run was pruned): nothing to decide';

/** What a notice's message says of a call that waits again at a newer version. */
export const CALL_CHANGED =
  'This call changed since this notice was made (edited, or parked again): a newer message asks about it';

/**
 * Whether a park notice still asks something when it is posted, read from the
 * row then: a notice sent late (retried after Slack was down, or sent again by
 * a person) may be posted after its call was decided by a kernel that settles
 * no Slack message, or after its row went away, and nothing would ever take
 * its buttons away. Answers the line its message ends with instead of the
 * buttons, or undefined while the call waits at the version the notice shows
 * (and for a notice that asks nothing).
 */
export async function noticeNoLongerAsks(
  reader: Reader,
  notice: Pick<DeliveryRow, 'workspace_id' | 'run_id' | 'task_key' | 'payload'>,
): Promise<string | undefined> {
  const payload = JSON.parse(notice.payload) as NotificationPayload;
  if (payload.type !== 'airlock.task.parked' || !payload.data.task) return undefined;
  if (!notice.run_id || !notice.task_key) return undefined;
  const row = await findTask(reader, notice.run_id, notice.task_key);
  if (!row) return CALL_GONE;
  if (row.state !== 'needs_approval') {
    const names = row.decided_by
      ? (await principalRoster(reader, notice.workspace_id)).names
      : new Map<string, string>();
    const name = row.decided_by ? names.get(row.decided_by) : undefined;
    return whatBecame(row, name ? `${name} (${row.decided_by})` : (row.decided_by ?? 'someone'));
  }
  return taskVersion(row) === payload.data.task.version ? undefined : CALL_CHANGED;
}
