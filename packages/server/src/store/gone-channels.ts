import type { Reader } from './reader.js';
import { SQL } from './sql-handle.js';
import type { Tx } from './store.js';

/**
 * Webhook channels whose receiver answered 410 Gone (Standard Webhooks: the
 * endpoint is gone, stop sending). The delivery that heard it is dead with a
 * mark in its `external_ref` (`gone:` and a digest of the URL it was posted
 * to); while such a delivery exists, the channel at that URL is disabled.
 * A person's redelivery of any notice of the channel clears the marks.
 */

/** The mark's prefix in `external_ref`. */
const GONE_PREFIX = 'gone:';

/** The mark a delivery keeps when the receiver at the URL of this digest answered 410. */
export function goneMark(urlDigest: string): string {
  return `${GONE_PREFIX}${urlDigest}`;
}

/** Which channel, posted to which URL (its digest). */
export interface GoneChannel {
  workspace_id: string;
  channel: string;
  urlDigest: string;
}

/** The id of a dead delivery of the channel whose receiver answered 410 at this URL, if any. */
export async function findGoneDelivery(
  reader: Reader,
  channel: GoneChannel,
): Promise<string | undefined> {
  const row = await reader[SQL].db
    .selectFrom('notification_deliveries')
    .select('id')
    .where('state', '=', 'dead')
    .where('workspace_id', '=', channel.workspace_id)
    .where('channel', '=', channel.channel)
    .where('external_ref', '=', goneMark(channel.urlDigest))
    .limit(1)
    .executeTakeFirst();
  return row?.id;
}

/**
 * Makes every pending delivery of the channel nobody is sending due now, so that the worker
 * dead-letters them as disabled at once rather than at the end of their backoff.
 */
export async function hastenChannel(
  tx: Tx,
  channel: Pick<GoneChannel, 'workspace_id' | 'channel'>,
): Promise<void> {
  await tx[SQL].db
    .updateTable('notification_deliveries')
    .set({ next_attempt_at: tx.now, updated_at: tx.now })
    .where('state', '=', 'pending')
    .where('workspace_id', '=', channel.workspace_id)
    .where('channel', '=', channel.channel)
    .where('next_attempt_at', '>', tx.now)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', tx.now)]))
    .execute();
}

/** Enables a channel a 410 disabled: clears the marks of its deliveries (a person redelivered one). */
export async function clearGoneMarks(
  tx: Tx,
  channel: Pick<GoneChannel, 'workspace_id' | 'channel'>,
): Promise<void> {
  await tx[SQL].db
    .updateTable('notification_deliveries')
    .set({ external_ref: null })
    .where('workspace_id', '=', channel.workspace_id)
    .where('channel', '=', channel.channel)
    .where('channel_kind', '=', 'webhook')
    .where('external_ref', 'like', `${GONE_PREFIX}%`)
    .execute();
}
