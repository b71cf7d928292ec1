import { hasErrorCode, isKernelOutage } from '../kernel-api.js';

/** How the HTTP front answers a credential the kernel did not take: its status and message. */
export interface CredentialRefusal {
  status: number;
  message: string;
}

/**
 * The answer to a credential check the kernel refused or could not make, or
 * null for any other failure (the gateway's own, which is thrown on): 401
 * for a credential unknown or revoked, 403 for one of another workspace or
 * application, 429 while the kernel throttles, 503 while it cannot answer.
 */
export function credentialRefusal(error: unknown): CredentialRefusal | null {
  if (hasErrorCode(error, 'unauthenticated')) return { status: 401, message: error.detail };
  if (hasErrorCode(error, 'forbidden')) return { status: 403, message: error.detail };
  // The kernel throttles failed authentications per address: the gateway's, here.
  if (hasErrorCode(error, 'rate_limited')) return { status: 429, message: error.detail };
  // Not the gateway's failure, nor the client's: the client may try again in a moment.
  if (isKernelOutage(error) && hasErrorCode(error)) {
    return {
      status: 503,
      message: `the Airlock kernel cannot answer now (${error.code}); try again`,
    };
  }
  return null;
}

/**
 * Whether the kernel itself checks the credential of every message of a
 * session's POST body: true only for `tools/call` requests, whose submit
 * the kernel authenticates (a revoked credential's call answers its
 * `unauthenticated`). Any other message (a `tools/list`, a `ping`, a
 * notification) is answered by the gateway alone, so the front checks the
 * credential first: a session outlives nothing its credential does.
 */
export function checkedByKernel(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return (
    messages.length > 0 &&
    messages.every(
      (message) =>
        typeof message === 'object' &&
        message !== null &&
        'id' in message &&
        (message as { method?: unknown }).method === 'tools/call',
    )
  );
}
