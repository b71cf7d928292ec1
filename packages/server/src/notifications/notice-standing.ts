import { taskVersion } from '../kernel/views.js';
import { type DeliveryRow, findDelivery, listTaskDeliveries } from '../store/notifications.js';
import { principalRoster } from '../store/principal-roster.js';
import type { Reader } from '../store/reader.js';
import { findTask } from '../store/tasks.js';
import { whatBecame } from './link-standing.js';
import { settledNotice } from './message-settle.js';
import type { NotificationPayload } from './payload.js';
import { asksAPerson } from './routing.js';
import { type ButtonValue, decidedMessage, noticeMessage } from './slack-blocks.js';

/** What a notice's message says of a call whose row the store no longer holds. */
export const CALL_GONE =
  'This call is no longer in Airlock (its run was pruned): nothing to decide';

/** What a notice's message says of a call that waits again at a newer version, posted in its channel. */
export const CALL_CHANGED =
  'This call changed since this notice was made (edited, or parked again): a newer message asks about it';

/**
 * The same, where no newer notice of the call was made for the channel (changed by a kernel
 * without it, or its `when` no longer takes the call).
 */
export const CALL_CHANGED_UNPOSTED =
  'This call changed since this notice was made (edited, or parked again): it waits in the Airlock inbox';

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
  notice: Pick<DeliveryRow, 'workspace_id' | 'run_id' | 'task_key' | 'payload' | 'channel'>,
): Promise<string | undefined> {
  const payload = JSON.parse(notice.payload) as NotificationPayload;
  if (payload.type !== 'airlock.task.parked' || !payload.data.task) return undefined;
  if (!notice.run_id || !notice.task_key) return undefined;
  return callNoLongerAsks(reader, {
    workspace_id: notice.workspace_id,
    run_id: notice.run_id,
    task_key: notice.task_key,
    version: payload.data.task.version,
    channel: notice.channel,
  });
}

/**
 * What became of a call that no longer waits at `version` (decided, changed,
 * gone), in the words of a settled message; undefined while it waits at it.
 */
export async function callNoLongerAsks(
  reader: Reader,
  call: {
    workspace_id: string;
    run_id: string;
    task_key: string;
    version: string;
    /** The channel of the notice asking: whether a newer one was made for it. */
    channel: string | undefined;
  },
): Promise<string | undefined> {
  const row = await findTask(reader, call.run_id, call.task_key);
  if (!row) return CALL_GONE;
  if (row.state !== 'needs_approval') {
    const names = row.decided_by
      ? (await principalRoster(reader, call.workspace_id)).names
      : new Map<string, string>();
    const name = row.decided_by ? names.get(row.decided_by) : undefined;
    return whatBecame(row, name ? `${name} (${row.decided_by})` : (row.decided_by ?? 'someone'));
  }
  const current = taskVersion(row);
  if (current === call.version) return undefined;
  const deliveries = await listTaskDeliveries(reader, call.run_id, call.task_key);
  const asksNow = deliveries.some(
    (delivery) =>
      delivery.channel === call.channel &&
      asksAPerson(delivery.event_type) &&
      (JSON.parse(delivery.payload) as NotificationPayload).data.task?.version === current,
  );
  return asksNow ? CALL_CHANGED : CALL_CHANGED_UNPOSTED;
}

/**
 * The message a pressed notice is to show instead, when its call no longer
 * waits at the version on the button and no settle of the outbox will reach
 * it (the call was decided by a kernel without this Slack channel, or is
 * gone): the notice rebuilt from the outbox (else the message as pressed)
 * without buttons, ending with what became of the call. Undefined while the
 * call waits, or when a settle of the notice is under way or done.
 */
export async function orphanedMessage(
  reader: Reader,
  button: ButtonValue,
  pressed: { text: string; blocks: Record<string, unknown>[] },
): Promise<{ text: string; blocks: Record<string, unknown>[] } | undefined> {
  const notice = await findDelivery(reader, button.workspace_id, button.delivery_id);
  const line = await callNoLongerAsks(reader, { ...button, channel: notice?.channel });
  if (line === undefined) return undefined;
  const deliveries = await listTaskDeliveries(reader, button.run_id, button.task_key);
  if (deliveries.some((delivery) => settledNotice(delivery) === button.delivery_id)) {
    return undefined;
  }
  if (notice) {
    const payload = JSON.parse(notice.payload) as NotificationPayload;
    return decidedMessage(noticeMessage(notice.id, payload), line);
  }
  return pressed.blocks.length > 0 ? decidedMessage(pressed, line) : undefined;
}
