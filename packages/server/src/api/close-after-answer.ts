import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** How a connection that closes with a request body unread keeps reading before it lets go. */
export interface Lingering {
  /** The connection closes when nothing arrived for this long. */
  idleMs: number;
  /** ...and at the latest this long after the answer was sent, whatever still arrives. */
  maxMs: number;
}

export const DEFAULT_LINGERING: Lingering = { idleMs: 1_000, maxMs: 10_000 };

const lingering = new WeakSet<Socket>();

/**
 * Makes the answer on `res` the connection's last (`connection: close`), for
 * a request refused before its body was read to its end (past the body
 * limit, an unauthenticated caller, a bad path).
 *
 * Node closes such a connection as soon as the answer is written. The bytes
 * the client is still sending then reach a closed socket, and the server's
 * TCP answers them with a reset, which can destroy the answer at the client
 * before it reads it: a client that writes its whole body before reading
 * (Python's http.client, Node's fetch under load) gets "connection reset"
 * instead of the 413. As RFC 9112 §9.6 describes, the server instead closes
 * its sending side after the answer and keeps reading (and discarding) what
 * arrives until the client closes, nothing arrived for `idleMs`, or
 * `maxMs` passed.
 */
export function closeAfterAnswer(res: ServerResponse, linger: Lingering = DEFAULT_LINGERING): void {
  if (res.headersSent) return;
  res.setHeader('connection', 'close');
  const socket = res.socket;
  if (!socket || res.req.complete || lingering.has(socket)) return;
  lingering.add(socket);
  // Node calls destroySoon once the last answer is written (see _http_server's resOnFinish).
  socket.destroySoon = () => {
    socket.end();
    let seen = socket.bytesRead;
    const idle = setInterval(() => {
      const before = seen;
      seen = socket.bytesRead;
      if (seen !== before) return;
      // Checked again after this turn's reads: a loop that was busy has not read what arrived yet.
      setImmediate(() => {
        if (socket.bytesRead === before) socket.destroy();
      });
    }, linger.idleMs);
    const cap = setTimeout(() => socket.destroy(), linger.maxMs);
    idle.unref();
    cap.unref();
    socket.once('end', () => socket.destroy());
    socket.once('close', () => {
      clearInterval(idle);
      clearTimeout(cap);
    });
  };
}
