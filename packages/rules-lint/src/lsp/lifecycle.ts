import { ErrorCodes, ResponseError } from 'vscode-languageserver/node.js';

/**
 * Where the server is in the LSP lifecycle. The protocol wants a request
 * before `initialize` answered with ServerNotInitialized and one after
 * `shutdown` with InvalidRequest; the library answers them as usual.
 */
export class Lifecycle {
  /** Set once `initialize` has been answered. */
  initialized = false;
  /** Set once `shutdown` has been received. */
  shutdownRequested = false;

  /** The error a request must get now, or undefined when it may be served. */
  refusal(method: string): ResponseError<void> | undefined {
    if (!this.initialized)
      return new ResponseError(
        ErrorCodes.ServerNotInitialized,
        `rules-lint: ${method} before initialize`,
      );
    if (this.shutdownRequested)
      return new ResponseError(ErrorCodes.InvalidRequest, `rules-lint: ${method} after shutdown`);
    return undefined;
  }

  /**
   * A document request's handler that answers the lifecycle's refusal
   * instead of running when there is one, and InvalidParams when the params
   * lack a string `textDocument.uri` or the position (or range) it asks about.
   */
  gate<P, R>(
    method: string,
    place: 'position' | 'range',
    handler: (params: P) => R,
  ): (params: P) => R | ResponseError<void> {
    return (params) => {
      const refused = this.refusal(method);
      if (refused) return refused;
      if (!hasDocumentAnd(params, place))
        return new ResponseError(
          ErrorCodes.InvalidParams,
          `rules-lint: ${method} needs textDocument.uri and a ${place}`,
        );
      return handler(params);
    };
  }
}

function isPosition(value: unknown): boolean {
  const { line, character } = (value ?? {}) as { line?: unknown; character?: unknown };
  return typeof line === 'number' && typeof character === 'number';
}

/** True when params carry a string document URI and a well-formed position or range. */
function hasDocumentAnd(params: unknown, place: 'position' | 'range'): boolean {
  const { textDocument, position, range } = (params ?? {}) as {
    textDocument?: { uri?: unknown };
    position?: unknown;
    range?: { start?: unknown; end?: unknown };
  };
  if (typeof textDocument?.uri !== 'string') return false;
  return place === 'position'
    ? isPosition(position)
    : isPosition(range?.start) && isPosition(range?.end);
}
