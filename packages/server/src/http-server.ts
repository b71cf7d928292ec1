import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createInboxHandler } from '@airlock/inbox';
import { createHTTPHandler } from '@trpc/server/adapters/standalone';
import type { Logger } from 'pino';
import { authenticateToken, bearerToken } from './api/access.js';
import { buildOpenApiDocument } from './api/openapi.js';
import { OPERATIONS } from './api/operations.js';
import { createRestHandler, sendError, sendJson } from './api/rest.js';
import { appRouter, type TrpcContext } from './api/trpc.js';
import type { FeedHub } from './feed/hub.js';
import { createSocketHandler } from './feed/ws.js';
import { AirlockError } from './kernel/errors.js';
import type { Kernel } from './kernel/kernel.js';

/** How the HTTP surface is served. */
export interface HttpOptions {
  kernel: Kernel;
  hub: FeedHub;
  logger: Logger;
  port: number;
  host: string;
  /** Largest request body in bytes. */
  bodyLimit: number;
  validateOutputs: boolean;
  version: string;
}

/** A listening HTTP server. */
export interface HttpHandle {
  server: Server;
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Serves REST, tRPC (/trpc), the OpenAPI document, and the WebSocket feed and cable. */
export async function startHttpServer(options: HttpOptions): Promise<HttpHandle> {
  const rest = createRestHandler(OPERATIONS, options);
  const openapi = JSON.stringify(buildOpenApiDocument(OPERATIONS, { version: options.version }));
  const trpc = createHTTPHandler({
    router: appRouter,
    basePath: '/trpc/',
    maxBodySize: options.bodyLimit,
    async createContext({ req }): Promise<TrpcContext> {
      try {
        const principal = await authenticateToken(
          options.kernel,
          bearerToken(req.headers.authorization),
        );
        return { kernel: options.kernel, hub: options.hub, principal, authError: null };
      } catch (error) {
        return {
          kernel: options.kernel,
          hub: options.hub,
          principal: null,
          authError:
            error instanceof AirlockError ? error : new AirlockError('internal', 'internal error'),
        };
      }
    },
  });
  const sockets = createSocketHandler({ kernel: options.kernel, hub: options.hub });
  const inbox = createInboxHandler();
  // Shutdown ends idle connections (even ones that never sent a request) and
  // event streams at once, and gives requests in flight a grace period.
  const busy = new Map<Socket, number>();
  const streams = new Set<Socket>();
  // One line per request at debug level (`--log-level debug`); nothing is built otherwise.
  const accessLog = options.logger.isLevelEnabled('debug');
  const server = createServer((req, res) => {
    const socket = req.socket;
    busy.set(socket, (busy.get(socket) ?? 0) + 1);
    res.once('close', () => busy.set(socket, (busy.get(socket) ?? 1) - 1));
    if (accessLog) {
      const started = performance.now();
      res.once('finish', () =>
        options.logger.debug(
          {
            method: req.method,
            path: req.url,
            status: res.statusCode,
            ms: performance.now() - started,
          },
          'request',
        ),
      );
    }
    if (inbox(req, res)) return;
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname.startsWith('/trpc/')) {
      if (req.headers.accept?.includes('text/event-stream')) streams.add(socket);
      trpc(req, res);
      return;
    }
    if (req.method === 'GET' && url.pathname === '/openapi.json') {
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
      res.end(openapi);
      return;
    }
    if (req.method === 'GET' && url.pathname === '/healthz') {
      sendJson(res, 200, { ok: true });
      return;
    }
    rest(req, res, url)
      .then((served) => {
        if (!served) sendError(res, new AirlockError('not_found', `no route ${url.pathname}`));
      })
      .catch((error: unknown) => {
        options.logger.error({ err: error }, 'request failed');
        if (!res.headersSent) sendError(res, new AirlockError('internal', 'internal error'));
      });
  });
  server.keepAliveTimeout = 65_000;
  server.on('connection', (socket: Socket) => {
    busy.set(socket, 0);
    socket.once('close', () => {
      busy.delete(socket);
      streams.delete(socket);
    });
  });
  server.on('upgrade', sockets.upgrade);
  server.on('clientError', (_error, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const shownHost = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    server,
    port,
    url: `http://${shownHost}:${port}`,
    close: async () => {
      sockets.close();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const [socket, requests] of busy) {
        if (requests === 0 || streams.has(socket)) socket.destroy();
      }
      // In-flight requests get a grace period, then every connection is ended.
      const force = setTimeout(() => server.closeAllConnections(), 2000);
      force.unref();
      await closed;
      clearTimeout(force);
    },
  };
}
