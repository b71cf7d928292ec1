import type { IncomingMessage } from 'node:http';
import { requestTargetUrl } from '@airlock/core';
import { AirlockError } from '../errors.js';

/** The request's target as a URL, or null when it is none (see core's `requestTargetUrl`). */
export function requestTarget(req: IncomingMessage): URL | null {
  return requestTargetUrl(req.url, 'http://localhost');
}

/** The answer to a request whose target is not a URL. */
export function badRequestTarget(): AirlockError {
  return new AirlockError(
    'invalid_input',
    'the request target is not a valid URL path (a path starts with one /)',
  );
}
