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
  /** The responses under way on each connection (only while there are some). */
  private readonly responses = new Map<Socket, Set<ServerResponse>>();

  /** A connection was accepted: it is followed until it closes. */
  accepted(socket: Socket): void {
    this.requests.set(socket, 0);
    socket.once('close', () => {
      this.requests.delete(socket);
      this.streams.delete(socket);
      this.responses.delete(socket);
    });
  }

  /** A request started on `socket`; it ends when its response closes. */
  started(socket: Socket, res: ServerResponse): void {
    const open = this.requests.get(socket);
    if (open === undefined) return;
    this.requests.set(socket, open + 1);
    const underWay = this.responses.get(socket) ?? new Set<ServerResponse>();
    underWay.add(res);
    this.responses.set(socket, underWay);
    res.once('close', () => {
      const left = this.requests.get(socket);
      if (left !== undefined) this.requests.set(socket, left - 1);
      underWay.delete(res);
      if (underWay.size === 0 && this.responses.get(socket) === underWay) {
        this.responses.delete(socket);
      }
    });
  }

  /**
   * Calls `then` once every response under way on `socket` to a request the
   * server read whole has closed: an answer written on the socket itself (a
   * refusal of the HTTP parser) must not go out ahead of the answer to an
   * earlier, pipelined request, which its client would take it for. A
   * request still arriving does not hold it: the refusal may be its own.
   */
  afterAnswers(socket: Socket, then: () => void): void {
    const held = [...(this.responses.get(socket) ?? [])].filter((res) => res.req.complete);
    if (held.length === 0) {
      then();
      return;
    }
    let left = held.length;
    for (const res of held) {
      res.once('close', () => {
        left -= 1;
        if (left === 0) then();
      });
    }
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
