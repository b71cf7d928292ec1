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
export function tlsFailure(error: unknown): boolean {
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
