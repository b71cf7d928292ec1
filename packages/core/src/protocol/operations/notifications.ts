import { z } from 'zod';
import { IdSchema, LimitSchema, WorkspaceParams } from '../inputs.js';
import { defineContract } from '../operation.js';
import { named } from '../registry.js';
import { operationRoute } from '../routes.js';
import { NextCursorSchema, PageCursorSchema } from './runs.js';

/** One notice for one channel, as the outbox holds it (never its channel's secrets). */
export const DeliveryViewSchema = named(
  z.object({
    /** The idempotency id: a webhook's `webhook-id`, the same on every attempt. */
    id: z.string(),
    run_id: z.string(),
    task_key: z.string().nullable(),
    /**
     * The event that needed a person: task.parked, task.asked, task.expired, run.held, run.failed;
     * or message.settled, the update of an earlier Slack notice once its call stopped waiting.
     */
    event_type: z.string(),
    channel: z.string(),
    channel_kind: z.enum(['webhook', 'slack', 'email']),
    state: z.enum(['pending', 'delivered', 'dead']),
    attempts: z.number().int(),
    next_attempt_at: z.number().int(),
    last_error: z.string().nullable(),
    created_at: z.number().int(),
    delivered_at: z.number().int().nullable(),
  }),
  { id: 'Delivery', description: 'One notice for one channel in the notification outbox.' },
);
/** One notice for one channel. */
export type DeliveryView = z.infer<typeof DeliveryViewSchema>;

/** GET /api/v1/workspaces/{ws}/notifications */
export const listDeliveriesContract = defineContract({
  ...operationRoute('notifications.list'),
  summary:
    'List the notification outbox of the workspace, newest first (ties by id; state pending, delivered or dead; run_id narrows to one run), a page at a time: pass next_cursor back as cursor for the next page',
  planes: ['member'],
  input: z.strictObject({
    ...WorkspaceParams,
    state: z.enum(['pending', 'delivered', 'dead']).optional(),
    run_id: IdSchema.optional(),
    limit: LimitSchema,
    cursor: PageCursorSchema.optional(),
  }),
  output: z.object({ deliveries: z.array(DeliveryViewSchema), next_cursor: NextCursorSchema }),
  errors: [],
});

/** POST /api/v1/workspaces/{ws}/notifications/{id}/redeliver */
export const redeliverContract = defineContract({
  ...operationRoute('notifications.redeliver'),
  summary:
    'Send a notice again now (a dead-lettered one, say), with its attempts counted afresh and the same idempotency id',
  planes: ['member'],
  input: z.strictObject({ ...WorkspaceParams, delivery_id: IdSchema }),
  output: DeliveryViewSchema,
  errors: ['delivery_not_found', 'delivery_in_flight'],
});
