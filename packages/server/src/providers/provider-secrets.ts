import { REDACTED } from '../logging/redact.js';

/** A bearer credential as an endpoint may echo it: `Bearer ` and what follows, up to a quote or a space. */
const BEARER = /\bBearer\s+[^\s"'<>,;]+/gi;
/** The user name and password of a URL (`https://user:pass@host`), which Node.js quotes when it refuses one. */
const URL_CREDENTIALS = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@"'<>]+@/gi;

/**
 * A provider's error text fit to store in a run's error and write to the
 * log: every occurrence of a secret it was sent (the deployment's API key),
 * anything written as `Bearer <credential>` and the user name and password
 * of a URL replaced with `[redacted]`.
 * An endpoint that echoes the request's Authorization header in its error
 * body would otherwise hand the key to everyone who may read the run.
 */
export function withoutSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  // The secrets first: a pattern that took part of one would leave the rest of it unmatched.
  let kept = text;
  for (const secret of secrets) {
    if (secret) kept = kept.replaceAll(secret, REDACTED);
  }
  return kept.replace(BEARER, `Bearer ${REDACTED}`).replace(URL_CREDENTIALS, `$1${REDACTED}@`);
}
