import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { AirlockError } from '../errors.js';
import type { Operation } from './operation.js';
import { sendError } from './rest.js';

/** Where the kernel serves its OpenAPI document. */
export const OPENAPI_PATH = '/openapi.json';

/**
 * Serves the OpenAPI document at {@link OPENAPI_PATH}: GET, and HEAD as its
 * GET without the body; another method answers 405 with `Allow`. The
 * document is built on its first request, not at start: it takes about
 * 150 ms that most kernels never need. Returns whether it served the request.
 */
export function createOpenApiRoute(options: {
  operations: readonly Operation[];
  version: string;
  logger: Logger;
}): (req: IncomingMessage, res: ServerResponse, url: URL) => boolean {
  let document: Promise<string> | undefined;
  const documentText = () =>
    (document ??= import('./openapi.js').then(({ buildOpenApiDocument }) =>
      JSON.stringify(buildOpenApiDocument(options.operations, { version: options.version })),
    ));
  return (req, res, url) => {
    if (url.pathname !== OPENAPI_PATH) return false;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('allow', 'GET, HEAD');
      sendError(res, new AirlockError('method_not_allowed', `${req.method} is not served here`));
      return true;
    }
    documentText().then(
      (text) => {
        // Node leaves out a HEAD answer's body and keeps its length.
        res.writeHead(200, {
          'content-type': 'application/json; charset=utf-8',
          'content-length': Buffer.byteLength(text),
        });
        res.end(text);
      },
      (error: unknown) => {
        options.logger.error({ err: error }, 'the API document could not be built');
        sendError(res, new AirlockError('internal', 'internal error'));
      },
    );
    return true;
  };
}
