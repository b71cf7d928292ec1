import type { LoggerOptions } from 'pino';
import { ACTION_LINK_PATH } from '../notifications/action-links.js';

/** What a credential is replaced with wherever a log line would carry it. */
export const REDACTED = '[redacted]';

/** Query parameters that carry a credential (the WebSocket fallback for a bearer token). */
const SECRET_PARAMS = ['access_token', 'token'];

/**
 * A bearer token as the store makes them (`alk_<kind>_` and 256 random bits, store/ids.ts),
 * anywhere in a text: `Bearer alk_…`, `alk_…,foo` carry it as much as the token alone does.
 */
const TOKEN = /alk_[a-z]+_[A-Za-z0-9_-]{16,}/;

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * A signed email action link's path: what follows it decides as a member, so it is a credential.
 * The path is matched as the router reads it (dot segments such as `.`, `%2e` and `x/..`
 * resolved), since that is where a request reaches the action route, and then as decoded text.
 */
function withoutSignedLink(path: string): string {
  const routed = routedPath(path);
  const at = routed.indexOf(ACTION_LINK_PATH);
  if (at >= 0) return `${routed.slice(0, at + ACTION_LINK_PATH.length)}${REDACTED}`;
  // A link sent a little wrong (`//notifications/…` names a host, an encoded `/`) misses the
  // route, yet works as sent right: what follows the action path in the decoded text goes too.
  const text = decoded(path);
  const sent = text.indexOf(ACTION_LINK_PATH);
  return sent < 0 ? path : `${text.slice(0, sent + ACTION_LINK_PATH.length)}${REDACTED}`;
}

/** A request path with its dot segments resolved, as the WHATWG URL parser (and so the router) reads it. */
function routedPath(path: string): string {
  try {
    return new URL(path, 'http://localhost').pathname;
  } catch {
    return path;
  }
}

/**
 * A request URL fit for a log line: the value of every credential query
 * parameter replaced, and so is every path segment or query value that holds
 * a token (a credential may be revoked by its token:
 * `POST .../credentials/<token>/revoke`), a query parameter named by a
 * token, whole, and a signed email action link;
 * the rest is kept as sent.
 */
export function redactUrl(url: string | undefined): string {
  if (!url) return '';
  const query = url.indexOf('?');
  const path = withoutSignedLink(query < 0 ? url : url.slice(0, query))
    .split('/')
    .map((segment) => (TOKEN.test(decoded(segment)) ? REDACTED : segment))
    .join('/');
  if (query < 0) return path;
  // A pair whose name holds a token (`?alk_…`, `?a[alk_…]=1`) goes whole: the name is no key to keep.
  const named = url
    .slice(query + 1)
    .split('&')
    .map((pair) =>
      TOKEN.test(decoded(pair.split('=')[0]!.replaceAll('+', ' '))) ? REDACTED : pair,
    )
    .join('&');
  const params = maskQueryValues(
    named,
    (name, value) =>
      SECRET_PARAMS.includes(decoded(name).toLowerCase()) ||
      TOKEN.test(decoded(value.replaceAll('+', ' '))),
    REDACTED,
  );
  return `${path}?${params}`;
}

/**
 * A query string (without its `?`) with the value of every `name=value` pair
 * that `secret` picks (given both as written, still encoded) replaced by `mask`.
 */
export function maskQueryValues(
  query: string,
  secret: (name: string, value: string) => boolean,
  mask: string,
): string {
  return query
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      const name = equals < 0 ? pair : pair.slice(0, equals);
      const value = equals < 0 ? '' : pair.slice(equals + 1);
      return secret(name, value) ? `${name}=${mask}` : pair;
    })
    .join('&');
}

/** Fields that carry a credential, as a header map or a client's options spell them. */
const SECRET_FIELDS = [
  'authorization',
  'Authorization',
  'cookie',
  'Cookie',
  'access_token',
  'token',
];

/**
 * How deep a logged object's secret fields are found: at its top, under any
 * key, and two keys down (an error's `config.headers.Authorization`, as an
 * HTTP client's error carries the request it sent).
 */
const FIELD_DEPTHS = ['', '*.', '*.*.', '*.*.*.'];

/**
 * pino's `redact` option: Authorization and cookie headers, and token fields,
 * in either case and up to three keys deep in a logged object (a request, its
 * headers, an error's context and the request an HTTP client's error holds).
 */
export const LOG_REDACTION: NonNullable<LoggerOptions['redact']> = {
  paths: FIELD_DEPTHS.flatMap((depth) => SECRET_FIELDS.map((field) => `${depth}${field}`)),
  censor: REDACTED,
};
