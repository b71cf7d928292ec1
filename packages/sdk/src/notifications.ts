import type { DeliveryView } from '@airlock/core';
import type { DecisionContext } from './decisions.js';
import { readCursorPages } from './internal/cursor-pages.js';
import { type RequestOptions, splitRequest } from './internal/deadline.js';

/** Which deliveries of the outbox to read: of one state, of one run. */
export interface DeliveryFilter {
  state?: DeliveryView['state'];
  runId?: string;
}

/** A page of the notification outbox (see {@link Notifications.page}). */
export interface DeliveryPage {
  deliveries: DeliveryView[];
  /** Pass as `cursor` for the next page; null on the last one. */
  next_cursor: string | null;
}

/** The workspace's notification outbox: one delivery per channel for each event that needs a person. */
export class Notifications {
  constructor(private readonly context: DecisionContext) {}

  /**
   * One page of the outbox, newest first (deliveries made in the same
   * millisecond by id): at most `limit` (100 unless given, at most 1000);
   * pass `next_cursor` back as `cursor` for the next page (null on the last one).
   * @throws ValidationError for a cursor the list did not make; ForbiddenError for a non-member token.
   */
  async page(
    options: DeliveryFilter & { limit?: number; cursor?: string } & RequestOptions = {},
  ): Promise<DeliveryPage> {
    const [{ runId, ...query }, request] = splitRequest(options);
    const page = await this.context.operations.notifications.list.query(
      {
        workspace_id: this.context.workspaceId,
        ...query,
        ...(runId === undefined ? {} : { run_id: runId }),
      },
      request,
    );
    return { deliveries: page.deliveries, next_cursor: page.next_cursor ?? null };
  }

  /**
   * Every delivery of the outbox (of one state or run when given), newest
   * first, read a page of `pageSize` (1000 unless given) at a time as the loop
   * asks: `for await (const d of workspace.notifications.all({ state: 'dead' }))`.
   * @throws ValidationError for a pageSize out of 1 to 1000; ForbiddenError;
   *   ServerError when a page hands back the cursor it was read with.
   */
  all(
    options: DeliveryFilter & { pageSize?: number } & RequestOptions = {},
  ): AsyncGenerator<DeliveryView, void, undefined> {
    const { pageSize = 1000, ...rest } = options;
    return readCursorPages(async (cursor) => {
      const page = await this.page({ ...rest, limit: pageSize, ...(cursor ? { cursor } : {}) });
      return { rows: page.deliveries, next_cursor: page.next_cursor };
    });
  }

  /**
   * Sends a notice again now (a dead-lettered one, say), with its attempts
   * counted afresh and the same idempotency id.
   * @throws NotFoundError `delivery_not_found`; ConflictError `delivery_in_flight`; ForbiddenError.
   */
  redeliver(deliveryId: string, request: RequestOptions = {}): Promise<DeliveryView> {
    return this.context.operations.notifications.redeliver.mutate(
      { workspace_id: this.context.workspaceId, delivery_id: deliveryId },
      request,
    );
  }
}
