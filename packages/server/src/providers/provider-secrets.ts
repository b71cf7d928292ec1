import { REDACTED } from '../logging/redact.js';

/** A bearer credential as an endpoint may echo it: `Bearer ` and what follows, up to a quote or a space. */
const BEARER = /\bBearer\s+[^\s"'<>,;]+/gi;

/**
 * A provider's error text fit to store in a run's error and write to the
 * log: every occurrence of a secret it was sent (the deployment's API key)
 * and anything written as `Bearer <credential>` replaced with `[redacted]`.
 * An endpoint that echoes the request's Authorization header in its error
 * body would otherwise hand the key to everyone who may read the run.
 */
export function withoutSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  let kept = text.replace(BEARER, `Bearer ${REDACTED}`);
  for (const secret of secrets) {
    if (secret) kept = kept.replaceAll(secret, REDACTED);
  }
  return kept;
}
