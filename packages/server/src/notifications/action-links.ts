import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Signed one-time action links for email (issue 27): a token names the row,
 * the row version it was made for, the verb, the member who decides and an
 * expiry (the park's deadline), signed with the channel's secret. A mail's
 * two links are single use: spent once the member's approval of that version
 * is recorded or the row stops waiting at it (link-standing.ts), and the
 * kernel refuses a decision bound to another version.
 */

/** The path action links point to, under the kernel's public URL. */
export const ACTION_LINK_PATH = '/notifications/email/actions/';

/** What an action link decides. */
export interface ActionClaim {
  /** The channel whose secret signed it (`workspace/name`). */
  workspace_id: string;
  channel: string;
  run_id: string;
  task_key: string;
  version: string;
  action: 'approve' | 'deny';
  /** The member credential the decision is recorded as. */
  member: string;
  /** Epoch ms after which the link is refused. */
  expires_at: number;
}

function mac(secret: string, body: string): string {
  return createHmac('sha256', secret).update(`airlock-action-link.${body}`).digest('base64url');
}

/** Makes the token of an action link. */
export function signActionLink(secret: string, claim: ActionClaim): string {
  const body = Buffer.from(JSON.stringify(claim)).toString('base64url');
  return `${body}.${mac(secret, body)}`;
}

/** Reads a token's claim without trusting it (to find the channel whose secret checks it). */
export function peekActionLink(token: string): ActionClaim | null {
  const [body] = token.split('.');
  if (!body) return null;
  try {
    const claim = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as ActionClaim;
    return typeof claim === 'object' && claim !== null && typeof claim.channel === 'string'
      ? claim
      : null;
  } catch {
    return null;
  }
}

/** Why a token is refused, or null when its signature and expiry hold. */
export function checkActionLink(
  secret: string,
  token: string,
  now: number,
): 'bad_signature' | 'expired' | null {
  const [body, signature, extra] = token.split('.');
  if (!body || !signature || extra !== undefined) return 'bad_signature';
  const expected = Buffer.from(mac(secret, body));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return 'bad_signature';
  const claim = peekActionLink(token);
  if (!claim || typeof claim.expires_at !== 'number') return 'bad_signature';
  return now > claim.expires_at ? 'expired' : null;
}
