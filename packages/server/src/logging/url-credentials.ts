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
 * A URL that may carry a credential (a PostgreSQL URL, an OTLP endpoint)
 * fit for a log line or a message: the user information (`user:password@`)
 * hidden, and the value of every query parameter that can carry a
 * credential (`?password=`, `sslpassword` as libpq and the `pg` driver read
 * them, an API key or a token). Works on text, so a URL no parser accepts
 * is redacted too.
 */
export function hideUrlCredentials(url: string): string {
  const fragment = url.indexOf('#');
  const text = fragment < 0 ? url : url.slice(0, fragment);
  const query = text.indexOf('?');
  let base = query < 0 ? text : text.slice(0, query);
  const authority = base.indexOf('//');
  // The last `@` before the query ends the user information, whatever its password holds.
  const at = base.lastIndexOf('@');
  if (authority >= 0 && at > authority)
    base = `${base.slice(0, authority + 2)}${HIDDEN}${base.slice(at)}`;
  if (query < 0) return base;
  const params = maskQueryValues(
    text.slice(query + 1),
    (name) => SECRET_PARAM.test(decoded(name)),
    HIDDEN,
  );
  return `${base}?${params}`;
}
