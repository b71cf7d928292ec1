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
 * The text with its user information (`user:password@`) replaced by `***`.
 * The authority ends at the first `/`, `?` or `#`, and its last `@` ends the
 * user information; when the authority holds no `@` but the text does later,
 * the password itself may hold a `/`, `?` or `#` (`u:pa?ss@host`, a URL no
 * parser accepts), so everything up to the text's last `@` is hidden, as
 * it is in a text without `//` (`user:password@host`, the scheme left out).
 */
function withoutUserInformation(url: string): string {
  const slashes = url.indexOf('//');
  const start = slashes < 0 ? 0 : slashes + 2;
  const rest = url.slice(start);
  const authorityEnd = rest.search(/[/?#]/);
  const authority = authorityEnd < 0 ? rest : rest.slice(0, authorityEnd);
  const at = authority.includes('@') ? authority.lastIndexOf('@') : rest.lastIndexOf('@');
  return at < 0 ? url : `${url.slice(0, start)}${HIDDEN}${rest.slice(at)}`;
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
