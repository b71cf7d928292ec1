import {
  ServerResponse as HttpResponse,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { sendError } from './api/rest.js';
import { AirlockError } from './errors.js';

/**
 * Serves a request that asks to switch to another protocol than WebSocket
 * (`curl --http2` sends `Upgrade: h2c` with every plain-http request) as the
 * HTTP/1.1 request it also is, since a server may ignore an upgrade it does
 * not speak. Node hands such a request to the 'upgrade' listener with its
 * socket, past its parser: a request without a body is answered by the
 * ordinary handler, on a response of its own that closes the connection
 * after it; one with a body, whose bytes the parser no longer reads, is
 * refused with `invalid_input`.
 */
export function serveDespiteUpgrade(
  req: IncomingMessage,
  socket: Duplex,
  onRequest: (req: IncomingMessage, res: ServerResponse) => void,
): void {
  socket.on('error', () => socket.destroy());
  const res = new HttpResponse(req);
  res.shouldKeepAlive = false;
  res.assignSocket(socket as Socket);
  res.on('finish', () => {
    res.detachSocket(socket as Socket);
    socket.end();
  });
  const bodyless =
    req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined;
  if (!bodyless) {
    sendError(
      res,
      new AirlockError(
        'invalid_input',
        `this server does not switch to ${String(req.headers.upgrade).slice(0, 40)}; send the request without an Upgrade header`,
      ),
    );
    return;
  }
  // Its body is empty: ended now, so that whatever reads it does not wait for bytes nobody parses.
  req.push(null);
  onRequest(req, res);
}
