import type { DeliveryRow, NewDelivery } from '../store/notifications.js';
import { MESSAGE_SETTLED, type SettlePayload, type SettleTarget } from './message-settle.js';

/**
 * The retire of a notice's earlier message that Slack refused right after the notice was
 * posted again (an outage, a rate limit): a delivery of the outbox, retried with backoff
 * like any settle, so that the person is not left with two live messages for one call.
 */
export function retireLater(
  notice: Pick<DeliveryRow, 'workspace_id' | 'run_id' | 'task_key' | 'channel'>,
  earlier: SettleTarget,
  now: number,
): NewDelivery {
  const payload: SettlePayload = {
    type: `airlock.${MESSAGE_SETTLED}`,
    timestamp: new Date(now).toISOString(),
    data: {
      workspace_id: notice.workspace_id,
      notice_id: earlier.noticeId,
      outcome: earlier.outcome,
      message: `${earlier.where.channel}:${earlier.where.ts}`,
    },
  };
  return {
    workspace_id: notice.workspace_id,
    run_id: notice.run_id,
    task_key: notice.task_key,
    event_type: MESSAGE_SETTLED,
    channel: notice.channel,
    channel_kind: 'slack',
    payload,
  };
}
