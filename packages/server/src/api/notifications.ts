import { OPERATION_CONTRACTS } from '@airlock/core';
import { AirlockError } from '../errors.js';
import { deliveryView } from '../kernel/views.js';
import { settleAgainOnRedelivery } from '../notifications/message-settle.js';
import { findDelivery, listDeliveries, scheduleRedelivery } from '../store/notifications.js';
import { implement } from './operation.js';
import { decodeDeliveryCursor, encodeDeliveryCursor, pageOf } from './page-cursors.js';

/**
 * GET /api/v1/workspaces/{ws}/notifications: a page of the outbox, newest
 * first; `next_cursor` is where the next page starts, null once none follows.
 * @throws invalid_input for a cursor this list did not make.
 */
export const listNotifications = implement(
  OPERATION_CONTRACTS['notifications.list'],
  async ({ kernel, principal }, input) => {
    const after = input.cursor === undefined ? undefined : decodeDeliveryCursor(input.cursor);
    // One delivery past the page tells whether another page follows.
    const rows = await listDeliveries(kernel.context.store, {
      workspaceId: principal.workspace_id,
      state: input.state,
      runId: input.run_id,
      limit: input.limit + 1,
      after,
    });
    const { page, next_cursor } = pageOf(rows, input.limit, encodeDeliveryCursor);
    return { deliveries: page.map(deliveryView), next_cursor };
  },
);

/** POST /api/v1/workspaces/{ws}/notifications/{id}/redeliver */
export const redeliverNotification = implement(
  OPERATION_CONTRACTS['notifications.redeliver'],
  async ({ kernel, principal }, input) => {
    const { scheduled, row } = await kernel.context.store.transaction(async (tx) => {
      const outcome = await scheduleRedelivery(tx, principal.workspace_id, input.delivery_id);
      // The notice as scheduled, read once: for its settle, and as the answer.
      const notice =
        outcome === 'scheduled'
          ? await findDelivery(tx, principal.workspace_id, input.delivery_id)
          : undefined;
      if (notice) await settleAgainOnRedelivery(tx, notice);
      return { scheduled: outcome, row: notice };
    });
    if (scheduled === 'in_flight') {
      throw new AirlockError(
        'delivery_in_flight',
        `notification ${input.delivery_id} is being sent right now; redeliver it once that attempt ended`,
      );
    }
    if (!row) {
      throw new AirlockError(
        'delivery_not_found',
        `no notification ${input.delivery_id} in this workspace`,
      );
    }
    return deliveryView(row);
  },
);
