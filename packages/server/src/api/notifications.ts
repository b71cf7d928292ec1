import { type DeliveryView, OPERATION_CONTRACTS } from '@airlock/core';
import { AirlockError } from '../errors.js';
import {
  type DeliveryRow,
  findDelivery,
  listDeliveries,
  scheduleRedelivery,
} from '../store/notifications.js';
import { implement } from './operation.js';

/** A delivery as the API shows it: never its payload's secrets, never a channel's. */
function deliveryView(row: DeliveryRow): DeliveryView {
  return {
    id: row.id,
    run_id: row.run_id,
    task_key: row.task_key,
    event_type: row.event_type,
    channel: row.channel,
    channel_kind: row.channel_kind,
    state: row.state,
    attempts: row.attempts,
    next_attempt_at: row.next_attempt_at,
    last_error: row.last_error,
    created_at: row.created_at,
    delivered_at: row.delivered_at,
  };
}

/** GET /api/v1/workspaces/{ws}/notifications */
export const listNotifications = implement(
  OPERATION_CONTRACTS['notifications.list'],
  async ({ kernel, principal }, input) => {
    const rows = await listDeliveries(kernel.context.store, {
      workspaceId: principal.workspace_id,
      state: input.state,
      runId: input.run_id,
      limit: input.limit,
    });
    return { deliveries: rows.map(deliveryView) };
  },
);

/** POST /api/v1/workspaces/{ws}/notifications/{id}/redeliver */
export const redeliverNotification = implement(
  OPERATION_CONTRACTS['notifications.redeliver'],
  async ({ kernel, principal }, input) => {
    const store = kernel.context.store;
    const found = await store.transaction((tx) =>
      scheduleRedelivery(tx, principal.workspace_id, input.delivery_id),
    );
    const row = found
      ? await findDelivery(store, principal.workspace_id, input.delivery_id)
      : undefined;
    if (!row) {
      throw new AirlockError(
        'delivery_not_found',
        `no notification ${input.delivery_id} in this workspace`,
      );
    }
    return deliveryView(row);
  },
);
