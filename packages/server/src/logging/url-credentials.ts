import { maskQueryValues } from './redact.js';

/** What a credential in a URL is replaced with where the URL is shown or logged. */
const HIDDEN = '***';

/** Query parameters that carry a credential: `password`, `sslpassword` and the like. */
const SECRET_PARAM = /pass|secret|token|key|credential/i;

function decoded(text: string): string {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    return text;
  }
}

/**
 * The text with its user information (`user:password@`) replaced by `***`:
 * everything from the scheme's `://` (the start, without one) to the text's
 * last `@`. A password may hold a `/`, `?`, `#` or `@` not percent-encoded
 * (a URL no parser accepts, yet said back in an error), so no `@` but the
 * last is taken for the host's; an `@` in a query value hides the host too.
 */
function withoutUserInformation(url: string): string {
  const start = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.exec(url)?.[0].length ?? 0;
  const at = url.lastIndexOf('@');
  return at < start ? url : `${url.slice(0, start)}${HIDDEN}${url.slice(at)}`;
}

/**
 * A URL that may carry a credential (a PostgreSQL URL, an OTLP endpoint)
 * fit for a log line or a message: the user information (`user:password@`)
 * hidden, and the value of every query parameter that can carry a
 * credential (`?password=`, `sslpassword` as libpq and the `pg` driver read
 * them, an API key or a token). Works on text, so a URL no parser accepts
 * (a password with a `?` or `#` not percent-encoded, a URL without its
 * scheme) is redacted too.
 */
export function hideUrlCredentials(url: string): string {
  const shown = withoutUserInformation(url);
  const fragment = shown.indexOf('#');
  const text = fragment < 0 ? shown : shown.slice(0, fragment);
  const query = text.indexOf('?');
  if (query < 0) return text;
  const params = maskQueryValues(
    text.slice(query + 1),
    (name) => SECRET_PARAM.test(decoded(name)),
    HIDDEN,
  );
  return `${text.slice(0, query)}?${params}`;
}
