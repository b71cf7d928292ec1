import { createHmac } from 'node:crypto';
import type { WebhookChannelConfig } from './config.js';
import { postForStatus } from './outbound-http.js';
import { ReceiverGone } from './receiver-gone.js';
import { checkResolvedTarget, pinnedLookup, type Resolve } from './target-address.js';

/**
 * Webhooks per the Standard Webhooks specification: the body is signed with
 * HMAC-SHA256 over `id.timestamp.body` under each of the channel's `whsec_`
 * secrets (several during a rotation, one `v1,` signature each), sent in the
 * `webhook-id`, `webhook-timestamp` and `webhook-signature` headers.
 */

/** The three Standard Webhooks headers of one message. */
export interface WebhookHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/** Signs a body: `id` is the delivery's idempotency id, `timestampSeconds` the send time. */
export function signWebhook(
  secrets: readonly string[],
  message: { id: string; timestampSeconds: number; body: string },
): WebhookHeaders {
  const signed = `${message.id}.${message.timestampSeconds}.${message.body}`;
  const signatures = secrets.map((secret) => {
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    return `v1,${createHmac('sha256', key).update(signed).digest('base64')}`;
  });
  return {
    'webhook-id': message.id,
    'webhook-timestamp': String(message.timestampSeconds),
    'webhook-signature': signatures.join(' '),
  };
}

/** Why a request failed, as a code (`ECONNREFUSED`, `TimeoutError`), never its message. */
function unreachableReason(error: unknown, timeout: AbortSignal): string {
  if (timeout.aborted) return 'TimeoutError';
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code !== 'ABORT_ERR') return code;
  return error instanceof Error ? error.name : 'unknown';
}

/** How long a receiver has to answer before the attempt counts as failed. */
const WEBHOOK_TIMEOUT_MS = 10_000;

/**
 * POSTs one notice to a webhook channel (`resolve`, the host name lookup, is for tests).
 * @throws ReceiverGone when the receiver answers 410 Gone (the notice is not retried).
 * @throws Error when the receiver cannot be reached, resolves to a link-local address or
 *   answers other than 2xx.
 */
export async function sendWebhook(
  channel: WebhookChannelConfig,
  delivery: { id: string; payload: string },
  attempt: { now: number; signal?: AbortSignal | undefined; resolve?: Resolve | undefined },
): Promise<void> {
  const { now } = attempt;
  // A name that resolves where the cloud metadata service answers is never posted to, and the
  // connection uses the addresses checked here, not a second lookup's (DNS rebinding).
  const pinned = await checkResolvedTarget(channel.url, attempt.resolve, attempt.signal);
  const timeout = AbortSignal.timeout(WEBHOOK_TIMEOUT_MS);
  const headers = signWebhook(
    channel.secrets.map((secret) => secret.value),
    { id: delivery.id, timestampSeconds: Math.floor(now / 1000), body: delivery.payload },
  );
  let status: number;
  try {
    status = await postForStatus({
      url: channel.url,
      headers: { 'content-type': 'application/json', 'user-agent': 'airlock-webhooks', ...headers },
      body: delivery.payload,
      signal: attempt.signal ? AbortSignal.any([attempt.signal, timeout]) : timeout,
      lookup: pinned ? pinnedLookup(pinned) : undefined,
    });
  } catch (error) {
    // Said without the client's own message, which may quote the URL (logged, kept as last_error).
    throw new Error(`the receiver could not be reached (${unreachableReason(error, timeout)})`);
  }
  if (status === 410) throw new ReceiverGone();
  if (status < 200 || status > 299) {
    throw new Error(`the receiver answered ${status}`);
  }
}
