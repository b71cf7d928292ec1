import type { IncomingMessage } from 'node:http';
import { AirlockError } from '../errors.js';

/**
 * The request's target as a URL, or null when it is none (`//[`,
 * `http://a:99999/`): Node's parser lets such a request line through, and
 * `new URL` throws on it.
 *
 * A path whose first segment is empty (`//host/api/...`) is none either:
 * resolved against a base it would name the host `host` and route as
 * `/api/...`, so a proxy in front that refuses `/api/...` by its path would
 * pass it on to the route it refused. No route starts with an empty segment.
 */
export function requestTarget(req: IncomingMessage): URL | null {
  const target = req.url ?? '/';
  if (target.startsWith('//')) return null;
  try {
    return new URL(target, 'http://localhost');
  } catch {
    return null;
  }
}

/** The answer to a request whose target is not a URL. */
export function badRequestTarget(): AirlockError {
  return new AirlockError(
    'invalid_input',
    'the request target is not a valid URL path (a path starts with one /)',
  );
}
