import { isAirlockError, isConnectionError, isValidationError } from '../errors.js';

/** Certificate failures Node's TLS reports by OpenSSL's verify code (no ERR_ prefix). */
const CERTIFICATE_CODES = new Set([
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_REVOKED',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'CERT_SIGNATURE_FAILURE',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'HOSTNAME_MISMATCH',
  // Node's http reports a TLS handshake that is no TLS (https to a plain http port) so.
  'EPROTO',
]);

/** Whether a failed request's causes hold a TLS failure: a certificate or a protocol the server does not speak. */
function tlsFailure(error: unknown): boolean {
  let cause: unknown = error;
  for (let depth = 0; depth < 8 && typeof cause === 'object' && cause !== null; depth += 1) {
    const { code, library } = cause as { code?: unknown; library?: unknown };
    if (typeof code === 'string') {
      if (CERTIFICATE_CODES.has(code)) return true;
      if (code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_')) return true;
    }
    if (library === 'SSL routines') return true;
    cause = (cause as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * Whether an executor-wide request (the cable's check, a claim of the next row) failed in a
 * way asking again gets the same answer, so the executor ends instead of polling for ever:
 * any 4xx but 408 and 429 (a refused credential, a url whose routes answer 404, a claim the
 * kernel refuses as it is), a success that is not the kernel's answer (another web server),
 * a request the SDK itself refuses, a TLS failure, and an error that is no AirlockError.
 * Passing: no answer (refused, reset, timed out, a name not resolved yet), 408, 429, 5xx.
 * Once the url has reached the kernel (`reachedKernel`), a 404 or an answer that is not the
 * kernel's says the server behind it changed (a proxy whose route is gone while the kernel
 * redeploys) rather than that the url is wrong: it passes too.
 */
export function isLastingFailure(error: unknown, reachedKernel = false): boolean {
  if (!isAirlockError(error)) return true;
  if (isConnectionError(error)) return tlsFailure(error);
  const { status } = error;
  if (status === null) return isValidationError(error);
  if (status === 408 || status === 429 || status >= 500) return false;
  return !(reachedKernel && (status === 404 || status < 400));
}
