import type { IncomingMessage } from 'node:http';
import { AirlockError } from '../errors.js';

/**
 * The request's target as a URL, or null when it is none (`//[`,
 * `http://a:99999/`): Node's parser lets such a request line through, and
 * `new URL` throws on it.
 */
export function requestTarget(req: IncomingMessage): URL | null {
  try {
    return new URL(req.url ?? '/', 'http://localhost');
  } catch {
    return null;
  }
}

/** The answer to a request whose target is not a URL. */
export function badRequestTarget(): AirlockError {
  return new AirlockError('invalid_input', 'the request target is not a valid URL path');
}
