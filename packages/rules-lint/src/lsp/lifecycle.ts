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

  /** A request handler that answers the lifecycle's refusal instead of running when there is one. */
  gate<P, R>(method: string, handler: (params: P) => R): (params: P) => R | ResponseError<void> {
    return (params) => this.refusal(method) ?? handler(params);
  }
}
