import { createHash } from 'node:crypto';
import { findGoneDelivery, goneMark } from '../store/gone-channels.js';
import type { DeliveryRow } from '../store/notifications.js';
import type { Reader } from '../store/reader.js';
import type { ChannelConfig } from './config.js';

/**
 * A webhook receiver that answers 410 Gone says its endpoint is gone for good
 * (Standard Webhooks): the notice is dead-lettered at once, not retried, and
 * the channel sends nothing more to that URL until a person redelivers one of
 * its notices (or the channel's `url` changes).
 */

/** The receiver answered 410 Gone. */
export class ReceiverGone extends Error {
  constructor() {
    super(
      'the receiver answered 410 Gone: the channel sends nothing more to this url until a notice of it is redelivered',
    );
  }
}

/** The delivery was not sent: its channel is disabled by an earlier 410 Gone. */
export class ChannelDisabled extends Error {
  constructor(channel: string, goneDeliveryId: string) {
    super(
      `not sent: channel ${channel} is disabled since its receiver answered 410 Gone to ${goneDeliveryId}; redeliver a notice of the channel to enable it`,
    );
  }
}

/** A digest of a webhook's URL (the URL itself may carry a token in its query). */
function urlDigest(url: string): string {
  return createHash('sha256').update(url).digest('hex').slice(0, 32);
}

/** What a delivery keeps when its receiver answered 410 Gone at the channel's URL. */
export function goneMarkOf(channel: ChannelConfig | undefined): string | undefined {
  return channel?.kind === 'webhook' ? goneMark(urlDigest(channel.url)) : undefined;
}

/**
 * Refuses to send a webhook delivery whose channel an earlier 410 Gone disabled.
 * @throws ChannelDisabled when it is disabled.
 */
export async function refuseIfDisabled(
  reader: Reader,
  delivery: DeliveryRow,
  channel: ChannelConfig | undefined,
): Promise<void> {
  if (channel?.kind !== 'webhook') return;
  const gone = await findGoneDelivery(reader, {
    workspace_id: delivery.workspace_id,
    channel: delivery.channel,
    urlDigest: urlDigest(channel.url),
  });
  if (gone !== undefined) throw new ChannelDisabled(delivery.channel, gone);
}
