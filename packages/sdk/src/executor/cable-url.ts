import { EXECUTOR_CABLE_PATH } from '@airlock/core/wire';
import { baseUrl, type ConnectionOptions } from '../internal/transport.js';

/** The cable URL; a first connection starts at the head, since the executor drains its inbox on `ready` anyway. */
export function cableUrl(options: ConnectionOptions, after: number): string {
  const url = new URL(`${baseUrl(options.url)}${EXECUTOR_CABLE_PATH}`);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  url.searchParams.set('after', after === 0 ? 'latest' : String(after));
  url.searchParams.set('access_token', options.token);
  return url.toString();
}
