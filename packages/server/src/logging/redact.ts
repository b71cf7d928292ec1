import type { LoggerOptions } from 'pino';

/** What a credential is replaced with wherever a log line would carry it. */
export const REDACTED = '[redacted]';

/** Query parameters that carry a credential (the WebSocket fallback for a bearer token). */
const SECRET_PARAMS = ['access_token', 'token'];

/**
 * A request URL fit for a log line: the value of every credential query
 * parameter replaced, the rest kept as sent.
 */
export function redactUrl(url: string | undefined): string {
  if (!url) return '';
  const query = url.indexOf('?');
  if (query < 0) return url;
  const params = url
    .slice(query + 1)
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      const name = equals < 0 ? pair : pair.slice(0, equals);
      let decoded = name;
      try {
        decoded = decodeURIComponent(name);
      } catch {}
      return SECRET_PARAMS.includes(decoded.toLowerCase()) ? `${name}=${REDACTED}` : pair;
    });
  return `${url.slice(0, query)}?${params.join('&')}`;
}

/**
 * pino's `redact` option: Authorization and cookie headers, and token fields,
 * wherever a logged object carries them (a request, its headers, an error's context).
 */
export const LOG_REDACTION: NonNullable<LoggerOptions['redact']> = {
  paths: [
    'authorization',
    'cookie',
    'access_token',
    'token',
    'headers.authorization',
    'headers.cookie',
    '*.authorization',
    '*.cookie',
    '*.access_token',
    '*.token',
    '*.headers.authorization',
    '*.headers.cookie',
  ],
  censor: REDACTED,
};
