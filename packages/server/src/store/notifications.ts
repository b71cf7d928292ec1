import { asKeptText } from '@airlock/core';
import { claimedForUpdate } from './dialect.js';
import { clearGoneMarks } from './gone-channels.js';
import { newId } from './ids.js';
import type { Reader } from './reader.js';
import { rowLimit } from './row-limit.js';
import type { NotificationDeliveryTable } from './schema.js';
import { SQL } from './sql-handle.js';
import type { Store, Tx } from './store.js';

/**
 * The notification outbox's repository (issue 27): deliveries are enqueued
 * inside the unit of work of the event that needs a person, claimed by the
 * delivery worker with a lease, and end delivered or dead (dead-lettered).
 */

/** A delivery as stored. */
export type DeliveryRow = NotificationDeliveryTable & { attempts: number };

/** What the outbox needs to enqueue one notice for one channel. */
export interface NewDelivery {
  workspace_id: string;
  run_id: string;
  task_key: string | null;
  event_type: string;
  channel: string;
  channel_kind: DeliveryRow['channel_kind'];
  payload: unknown;
}

/** A fresh idempotency id: the receiver dedupes on it (a webhook's `webhook-id`). */
export function newDeliveryId(): string {
  return newId('ntf');
}

/**
 * Most deliveries one INSERT writes: each row binds 18 values, and a statement
 * may bind at most 32,766 on SQLite and 65,535 on PostgreSQL.
 */
const DELIVERIES_PER_INSERT = 500;

/**
 * Writes deliveries in the caller's transaction, however many (a run stopped
 * with thousands of parked calls settles each one's notices); answers their
 * ids, in order.
 */
export async function enqueueDeliveries(tx: Tx, deliveries: NewDelivery[]): Promise<string[]> {
  if (deliveries.length === 0) return [];
  const rows = deliveries.map((delivery) => ({
    id: newDeliveryId(),
    workspace_id: delivery.workspace_id,
    run_id: delivery.run_id,
    task_key: delivery.task_key,
    event_type: delivery.event_type,
    channel: delivery.channel,
    channel_kind: delivery.channel_kind,
    payload: JSON.stringify(delivery.payload),
    state: 'pending' as const,
    attempts: 0,
    next_attempt_at: tx.now,
    lease_owner: null,
    lease_until: null,
    last_error: null,
    external_ref: null,
    created_at: tx.now,
    updated_at: tx.now,
    delivered_at: null,
  }));
  for (let from = 0; from < rows.length; from += DELIVERIES_PER_INSERT) {
    await tx[SQL].db
      .insertInto('notification_deliveries')
      .values(rows.slice(from, from + DELIVERIES_PER_INSERT))
      .execute();
  }
  return rows.map((row) => row.id);
}

/** Who claims due deliveries, when, for how long and how many. */
export interface DeliveryClaim {
  owner: string;
  now: number;
  leaseMs: number;
  limit: number;
  /** Channels the worker is busy with: none of their deliveries is claimed. */
  skipChannels?: readonly { workspace_id: string; channel: string }[] | undefined;
  /** Deliveries the worker is sending now: not claimed again, even once their lease lapsed. */
  skipIds?: readonly string[] | undefined;
}

/**
 * Claims pending deliveries that are due and not leased by a live worker: each
 * comes back leased to `owner` until `now + leaseMs`. Two workers never hold
 * the same delivery (the UPDATE re-checks the lease it takes).
 */
export async function claimDueDeliveries(
  store: Store,
  claim: DeliveryClaim,
): Promise<DeliveryRow[]> {
  return store.transaction(async (tx) => {
    const due = claimedForUpdate(
      tx[SQL].dialect,
      tx[SQL].db
        .selectFrom('notification_deliveries')
        .select('id')
        .where('state', '=', 'pending')
        .where('next_attempt_at', '<=', claim.now)
        .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', claim.now)]))
        .$if((claim.skipIds ?? []).length > 0, (query) =>
          query.where('id', 'not in', claim.skipIds ?? []),
        )
        .$if((claim.skipChannels ?? []).length > 0, (query) =>
          query.where((eb) =>
            eb.not(
              eb.or(
                (claim.skipChannels ?? []).map((busy) =>
                  eb.and([
                    eb('workspace_id', '=', busy.workspace_id),
                    eb('channel', '=', busy.channel),
                  ]),
                ),
              ),
            ),
          ),
        )
        .orderBy('next_attempt_at')
        .limit(rowLimit(claim.limit)),
    );
    const ids = (await due.execute()).map((row) => row.id);
    if (ids.length === 0) return [];
    const rows = await tx[SQL].db
      .updateTable('notification_deliveries')
      .set({ lease_owner: claim.owner, lease_until: claim.now + claim.leaseMs })
      .where('id', 'in', ids)
      .where('state', '=', 'pending')
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', claim.now)]))
      .returningAll()
      .execute();
    return rows as DeliveryRow[];
  });
}

/** Records a delivery the channel accepted (only while `owner` still holds its lease). */
export async function markDelivered(
  tx: Tx,
  delivery: { id: string; owner: string; attempts: number; externalRef: string | null },
): Promise<boolean> {
  const result = await tx[SQL].db
    .updateTable('notification_deliveries')
    .set({
      state: 'delivered',
      attempts: delivery.attempts,
      delivered_at: tx.now,
      updated_at: tx.now,
      lease_owner: null,
      lease_until: null,
      last_error: null,
      external_ref: delivery.externalRef,
    })
    .where('id', '=', delivery.id)
    .where('state', '=', 'pending')
    .where('lease_owner', '=', delivery.owner)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Records a failed attempt: due again at `retryAt`, or dead (dead-lettered)
 * when `retryAt` is null. Only while `owner` still holds the lease.
 */
export async function markAttemptFailed(
  tx: Tx,
  failure: {
    id: string;
    owner: string;
    attempts: number;
    error: string;
    retryAt: number | null;
    /** What the channel keeps of the attempt (the recipients it reached), when it says. */
    externalRef?: string | undefined;
  },
): Promise<boolean> {
  const result = await tx[SQL].db
    .updateTable('notification_deliveries')
    .set({
      state: failure.retryAt === null ? 'dead' : 'pending',
      attempts: failure.attempts,
      next_attempt_at: failure.retryAt ?? tx.now,
      updated_at: tx.now,
      lease_owner: null,
      lease_until: null,
      // The channel's own words (an SMTP server's reply) may hold NUL, which PostgreSQL refuses
      // in text: the attempt would go unrecorded, and the delivery be sent again for good.
      last_error: asKeptText(failure.error.slice(0, 1000)),
      ...(failure.externalRef === undefined ? {} : { external_ref: failure.externalRef }),
    })
    .where('id', '=', failure.id)
    .where('state', '=', 'pending')
    .where('lease_owner', '=', failure.owner)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Which deliveries a listing shows. */
export interface DeliveryListing {
  workspaceId: string;
  state?: DeliveryRow['state'] | undefined;
  runId?: string | undefined;
  limit: number;
  /** Only the deliveries after this one in the list's order. */
  after?: DeliveryCursor | undefined;
}

/** Where a page of deliveries starts: after this one, newest first by (created_at, id). */
export interface DeliveryCursor {
  createdAt: number;
  id: string;
}

/**
 * A workspace's deliveries, newest first, ties (deliveries made in the same
 * millisecond) by id, descending: an order in which every delivery has one
 * place, so a page after a cursor neither skips nor repeats one.
 */
export async function listDeliveries(
  reader: Reader,
  listing: DeliveryListing,
): Promise<DeliveryRow[]> {
  const after = listing.after;
  const rows = await reader[SQL].db
    .selectFrom('notification_deliveries')
    .selectAll()
    .where('workspace_id', '=', listing.workspaceId)
    .$if(listing.state !== undefined, (qb) => qb.where('state', '=', listing.state!))
    .$if(listing.runId !== undefined, (qb) => qb.where('run_id', '=', listing.runId!))
    .$if(after !== undefined, (qb) =>
      // The first bound alone is a range of index notification_deliveries_by_workspace.
      qb
        .where('created_at', '<=', after!.createdAt)
        .where((eb) => eb.or([eb('created_at', '<', after!.createdAt), eb('id', '<', after!.id)])),
    )
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(rowLimit(listing.limit))
    .execute();
  return rows as DeliveryRow[];
}

/** One delivery of a workspace; undefined when it has none by that id. */
export async function findDelivery(
  reader: Reader,
  workspaceId: string,
  id: string,
): Promise<DeliveryRow | undefined> {
  const row = await reader[SQL].db
    .selectFrom('notification_deliveries')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row as DeliveryRow | undefined;
}

/** What the outbox reads of a call's earlier deliveries to settle their Slack messages. */
export type TaskDelivery = Pick<
  DeliveryRow,
  | 'id'
  | 'workspace_id'
  | 'event_type'
  | 'channel'
  | 'channel_kind'
  | 'state'
  | 'payload'
  | 'lease_until'
>;

/** Every delivery of one row of a run, oldest first (a handful: one per notice and channel). */
export async function listTaskDeliveries(
  reader: Reader,
  runId: string,
  taskKey: string,
): Promise<TaskDelivery[]> {
  return reader[SQL].db
    .selectFrom('notification_deliveries')
    .select([
      'id',
      'workspace_id',
      'event_type',
      'channel',
      'channel_kind',
      'state',
      'payload',
      'lease_until',
    ])
    .where('run_id', '=', runId)
    .where('task_key', '=', taskKey)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/**
 * Makes a delivery due again now, with its attempts counted afresh (a person
 * redelivers a dead or delivered notice); its id, hence its idempotency id, is
 * kept. A delivery a kernel is sending right now (pending under a live lease)
 * is left alone, so that no second send runs beside it: `in_flight`. A
 * webhook channel a 410 Gone disabled is enabled again (gone-channels.ts).
 */
export async function scheduleRedelivery(
  tx: Tx,
  workspaceId: string,
  id: string,
): Promise<'scheduled' | 'in_flight' | 'not_found'> {
  const result = await tx[SQL].db
    .updateTable('notification_deliveries')
    .set({
      state: 'pending',
      attempts: 0,
      next_attempt_at: tx.now,
      lease_owner: null,
      lease_until: null,
      updated_at: tx.now,
    })
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .where((eb) =>
      eb.or([
        eb('state', '!=', 'pending'),
        eb('lease_until', 'is', null),
        eb('lease_until', '<=', tx.now),
      ]),
    )
    .executeTakeFirst();
  const found = await findDelivery(tx, workspaceId, id);
  if (Number(result.numUpdatedRows) !== 1) return found ? 'in_flight' : 'not_found';
  // A person sends a notice of a channel a 410 Gone disabled: it is enabled again.
  if (found?.channel_kind === 'webhook') await clearGoneMarks(tx, found);
  return 'scheduled';
}

/**
 * Makes a pending delivery nobody is sending due now (one waiting for
 * something that just happened); a delivered, dead or leased one is left.
 */
export async function hastenDelivery(tx: Tx, id: string): Promise<void> {
  await tx[SQL].db
    .updateTable('notification_deliveries')
    .set({ next_attempt_at: tx.now, updated_at: tx.now })
    .where('id', '=', id)
    .where('state', '=', 'pending')
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', tx.now)]))
    .execute();
}

/** Deliveries still to be made (pending), for the backlog gauge. */
export async function countPendingDeliveries(reader: Reader): Promise<number> {
  const row = await reader[SQL].db
    .selectFrom('notification_deliveries')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('state', '=', 'pending')
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}
