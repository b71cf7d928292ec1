import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * The HTTP server's open connections, with the requests each has in flight
 * and whether it carries an event stream, so that shutdown can end the idle
 * ones and the streams at once and give requests in flight a grace period.
 *
 * A connection is forgotten when it closes. A response's own `close` can
 * come after its connection's (a client that drops a stream or a request
 * under way): it must not bring the closed connection back, or the map
 * would keep every such socket, with its request and response, for the
 * server's life.
 */
export class OpenConnections {
  private readonly requests = new Map<Socket, number>();
  private readonly streams = new Set<Socket>();

  /** A connection was accepted: it is followed until it closes. */
  accepted(socket: Socket): void {
    this.requests.set(socket, 0);
    socket.once('close', () => {
      this.requests.delete(socket);
      this.streams.delete(socket);
    });
  }

  /** A request started on `socket`; it ends when its response closes. */
  started(socket: Socket, res: ServerResponse): void {
    const open = this.requests.get(socket);
    if (open === undefined) return;
    this.requests.set(socket, open + 1);
    res.once('close', () => {
      const left = this.requests.get(socket);
      if (left !== undefined) this.requests.set(socket, left - 1);
    });
  }

  /** The request on `socket` is an event stream: shutdown ends it at once. */
  streaming(socket: Socket): void {
    if (this.requests.has(socket)) this.streams.add(socket);
  }

  /** How many connections are open. */
  get size(): number {
    return this.requests.size;
  }

  /** Ends the connections with no request in flight, and the event streams. */
  endIdle(): void {
    for (const [socket, open] of this.requests) {
      if (open === 0 || this.streams.has(socket)) socket.destroy();
    }
  }
}

/**
 * Aborted when the response closes before it was all written: the client
 * gave up (closed its connection) while its request was served, so an
 * operation holding it stops without taking what nobody will read.
 */
export function clientGoneSignal(res: ServerResponse): AbortSignal {
  const gone = new AbortController();
  // Made while the request is served: the client may have left already (while its body was read).
  if (res.closed) {
    if (!res.writableFinished) gone.abort();
    return gone.signal;
  }
  res.once('close', () => {
    if (!res.writableFinished) gone.abort();
  });
  return gone.signal;
}
