import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { BODY_LIMIT_HEADER } from '@airlock/core';
import { createInboxHandler } from '@airlock/inbox';
import { createHTTPHandler } from '@trpc/server/adapters/standalone';
import type { Logger } from 'pino';
import { type Authentication, authenticateRequest, bearerToken } from './api/access.js';
import { type AuthFailureLimit, AuthFailureThrottle } from './api/auth-throttle.js';
import { closeAfterAnswer } from './api/close-after-answer.js';
import { createOpenApiRoute } from './api/openapi-route.js';
import { OPERATIONS } from './api/operations.js';
import { RateLimiter, type RateLimitOptions } from './api/rate-limit.js';
import {
  type BodyRefusal,
  continueWhenRead,
  hasLargeTrpcBody,
  hasUnreadBody,
  MAX_READABLE_BODY,
  readableBodyLimit,
  readTrpcBody,
  trpcBodyLimit,
  trpcQueryRefusal,
} from './api/request-body.js';
import { noteErrorCode, noteOperation, readNote } from './api/request-notes.js';
import { badRequestTarget, requestTarget } from './api/request-target.js';
import { createRestHandler, sendError, sendJson } from './api/rest.js';
import { createAppRouter } from './api/trpc.js';
import { MAX_TRPC_BATCH, type TrpcContext } from './api/trpc-errors.js';
import { loggedProcedure } from './api/trpc-logged-procedure.js';
import { AirlockError } from './errors.js';
import { CredentialWatch } from './feed/credential-watch.js';
import type { FeedHub } from './feed/hub.js';
import { createSocketHandler } from './feed/ws.js';
import { answerClientError } from './http-client-errors.js';
import { clientGoneSignal, OpenConnections } from './http-connections.js';
import type { Kernel } from './kernel/kernel.js';
import { redactUrl } from './logging/redact.js';
import { serveProtectedMetrics } from './metrics/endpoint.js';
import type { KernelMetrics } from './metrics/registry.js';
import { serveDespiteUpgrade } from './other-upgrades.js';
import { checkReadiness } from './store/readiness.js';
import type { CallTracing } from './tracing/call-tracing.js';

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
  /** Per-credential request limit on the agent and member planes; none when null or absent. */
  rateLimit?: RateLimitOptions | null | undefined;
  /** Per-peer limit on failed authentications (every surface); none when null or absent. */
  authFailureLimit?: AuthFailureLimit | null | undefined;
  /** How long a slow client may take; see {@link DEFAULT_TIMEOUTS}. */
  timeouts?: Partial<ServerTimeouts> | undefined;
  /** Request metrics, and `GET /metrics` for a member credential; none when null or absent. */
  metrics?: KernelMetrics | null | undefined;
  /** A server span per request continuing its `traceparent`; none when null or absent. */
  tracing?: CallTracing | null | undefined;
  /** Routes served before REST (the notification channels'); true when one served the request. */
  routes?: ((req: IncomingMessage, res: ServerResponse, url: URL) => boolean) | undefined;
  /** How often an open socket's credential is asked about again (default 10 s). */
  credentialRecheckMs?: number | undefined;
  /** Live feeds one credential may hold open (default 1000; Infinity: no bound). */
  maxFeeds?: number | undefined;
}

/** The tRPC procedures by name, so a request's operation label stays within the known ones. */
const FEED_OPERATION = 'runs.feed';
const TRPC_NAMES = new Set([...OPERATIONS.map((operation) => operation.name), FEED_OPERATION]);

/** Times each request by operation and counts error answers by code, once it is answered. */
function measureRequest(metrics: KernelMetrics, res: ServerResponse): void {
  const started = performance.now();
  res.once('finish', () => {
    const note = readNote(res);
    if (note?.errorCode) metrics.errors.inc({ code: note.errorCode });
    // A feed stream lasts as long as its subscriber: it is no round trip.
    if (note?.operation === FEED_OPERATION) return;
    metrics.requestSeconds.observe(
      { operation: note?.operation ?? 'other' },
      (performance.now() - started) / 1000,
    );
  });
}

/** Limits on slow clients, in milliseconds (Node's `createServer` options). */
export interface ServerTimeouts {
  /** The whole request, headers and body, must arrive within this (Node's `requestTimeout`). */
  requestMs: number;
  /** The headers must arrive within this (`headersTimeout`; at most `requestMs`). */
  headersMs: number;
  /** An idle keep-alive connection is closed after this (`keepAliveTimeout`). */
  idleMs: number;
  /** How often the two deadlines above are checked (`connectionsCheckingInterval`). */
  checkIntervalMs: number;
  /**
   * How often an open feed socket is pinged: one that answered nothing since
   * the last ping is ended (a client gone without a close gives its feed back).
   * A quiet tRPC subscription gets a ping event as often.
   */
  feedPingMs: number;
}

/**
 * The default limits: a request has 30 s, its headers 10 s, an idle connection
 * 65 s, a feed socket that stopped answering pings 30 to 60 s.
 */
export const DEFAULT_TIMEOUTS: ServerTimeouts = {
  requestMs: 30_000,
  headersMs: 10_000,
  idleMs: 65_000,
  checkIntervalMs: 1_000,
  feedPingMs: 30_000,
};

/** A listening HTTP server. */
export interface HttpHandle {
  server: Server;
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Serves REST, tRPC (/trpc), the OpenAPI document, and the WebSocket feed and cable. */
export async function startHttpServer(options: HttpOptions): Promise<HttpHandle> {
  // A body is decoded into one string: past V8's longest one, a body would be read and then fail.
  const bodyLimit = readableBodyLimit(options.bodyLimit);
  if (bodyLimit < options.bodyLimit) {
    options.logger.warn(
      { bodyLimit: options.bodyLimit, readable: MAX_READABLE_BODY },
      `the body limit is past the largest body the kernel can read; it reads up to ${MAX_READABLE_BODY} bytes`,
    );
  }
  const rateLimiter = options.rateLimit ? new RateLimiter(options.rateLimit) : null;
  const authThrottle = options.authFailureLimit
    ? new AuthFailureThrottle(options.authFailureLimit)
    : null;
  const rest = createRestHandler(OPERATIONS, { ...options, rateLimiter, authThrottle });
  const openapi = createOpenApiRoute({
    operations: OPERATIONS,
    version: options.version,
    logger: options.logger,
  });
  // Each tRPC request is authenticated before tRPC reads its body (see the request handler).
  const authentications = new WeakMap<IncomingMessage, Authentication>();
  const bodyRefusals = new WeakMap<IncomingMessage, BodyRefusal>();
  // A revoked credential's feeds (sockets and tRPC subscriptions) end within a recheck.
  const credentials = new CredentialWatch(
    options.kernel.context.store,
    options.credentialRecheckMs,
    options.maxFeeds,
  );
  // This kernel's own revocations end what the credential holds open at once.
  const sweepNow = () => void credentials.sweep();
  options.kernel.credentialEnds.add(sweepNow);
  const timeouts: ServerTimeouts = { ...DEFAULT_TIMEOUTS };
  for (const [key, value] of Object.entries(options.timeouts ?? {})) {
    if (value !== undefined) timeouts[key as keyof ServerTimeouts] = value;
  }
  const trpc = createHTTPHandler({
    router: createAppRouter({ pingMs: timeouts.feedPingMs }),
    basePath: '/trpc/',
    maxBodySize: bodyLimit,
    maxBatchSize: MAX_TRPC_BATCH,
    async createContext({ req, res }): Promise<TrpcContext> {
      // As every REST answer (api/rest.ts): for its caller alone, read only as its type.
      if (!res.headersSent) {
        res.setHeader('cache-control', 'no-store');
        res.setHeader('x-content-type-options', 'nosniff');
      }
      const auth =
        authentications.get(req) ?? (await authenticateRequest(options.kernel, req, authThrottle));
      return {
        kernel: options.kernel,
        hub: options.hub,
        principal: auth.principal,
        authenticatedAt: auth.at,
        authError: auth.error,
        signal: clientGoneSignal(res),
        bodyRefusal: bodyRefusals.get(req) ?? null,
        largeBody: hasLargeTrpcBody(req),
        rateLimiter,
        checkDeclaredCodes: options.validateOutputs,
        noteError: (code) => noteErrorCode(res, code),
        watchCredential: (revoked) =>
          credentials.watch(bearerToken(req.headers.authorization) ?? '', revoked),
        admitFeed: () => credentials.admit(bearerToken(req.headers.authorization) ?? ''),
        setHeader: (name, value) => {
          if (!res.headersSent) res.setHeader(name, value);
        },
      };
    },
  });
  const sockets = createSocketHandler({
    kernel: options.kernel,
    hub: options.hub,
    authThrottle,
    rateLimiter,
    metrics: options.metrics,
    credentials,
    heartbeatMs: timeouts.feedPingMs,
  });
  const inbox = createInboxHandler();
  // Shutdown ends idle connections (even ones that never sent a request) and
  // event streams at once, and gives requests in flight a grace period.
  const connections = new OpenConnections();
  // One line per request at debug level (`--log-level debug`); nothing is built otherwise.
  const accessLog = options.logger.isLevelEnabled('debug');
  const metrics = options.metrics ?? null;
  /** The kernel's own read-only pages: any other method answers 405 naming GET and HEAD. */
  const readOnlyPaths = new Set(['/healthz', '/readyz', ...(metrics ? ['/metrics'] : [])]);
  const tracing = options.tracing ?? null;
  const serverOptions = {
    requestTimeout: timeouts.requestMs,
    headersTimeout: Math.min(timeouts.headersMs, timeouts.requestMs),
    keepAliveTimeout: timeouts.idleMs,
    connectionsCheckingInterval: timeouts.checkIntervalMs,
  };
  const bodyLimitText = String(bodyLimit);
  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    if (metrics) measureRequest(metrics, res);
    if (tracing) tracing.serve(req, res, () => handle(req, res));
    else handle(req, res);
  };
  function handle(req: IncomingMessage, res: ServerResponse): void {
    const socket = req.socket;
    connections.started(socket, res);
    // Every answer says the limit, so a client sizing a commit (the MCP gateway) uses this one.
    res.setHeader(BODY_LIMIT_HEADER, bodyLimitText);
    if (accessLog) {
      const started = performance.now();
      res.once('finish', () =>
        options.logger.debug(
          {
            method: req.method,
            path: redactUrl(req.url),
            status: res.statusCode,
            ms: performance.now() - started,
          },
          'request',
        ),
      );
    }
    if (inbox(req, res)) return;
    const url = requestTarget(req);
    if (!url) {
      sendError(res, badRequestTarget());
      return;
    }
    if (url.pathname.startsWith('/trpc/')) {
      if (req.method !== 'GET' && req.method !== 'POST') {
        // tRPC would answer another method 415 as text/plain; REST answers 405 and names the methods.
        res.setHeader('allow', 'GET, POST');
        if (hasUnreadBody(req)) closeAfterAnswer(res);
        sendError(
          res,
          new AirlockError('method_not_allowed', `tRPC serves GET and POST, not ${req.method}`),
        );
        return;
      }
      const name = url.pathname.slice('/trpc/'.length);
      if (TRPC_NAMES.has(name)) noteOperation(res, name);
      if (req.headers.accept?.includes('text/event-stream')) connections.streaming(socket);
      void authenticateRequest(options.kernel, req, authThrottle)
        .then(async (auth) => {
          authentications.set(req, auth);
          // A refused caller's body is never read: the connection closes after the answer.
          if (auth.error && hasUnreadBody(req)) closeAfterAnswer(res);
          else if (req.method === 'POST') {
            // Read here, not by tRPC: bytes that are not UTF-8 are refused, never stored as U+FFFD.
            const caller = { limit: bodyLimit, plane: auth.principal?.kind ?? null };
            const refusal = await readTrpcBody(req, {
              limit: trpcBodyLimit(name, caller, OPERATIONS),
              query: url.searchParams,
            });
            if (refusal) bodyRefusals.set(req, refusal);
            // A body refused before or while it was read (too large, compressed) is not read on.
            const tooLarge =
              refusal instanceof AirlockError && refusal.code === 'payload_too_large';
            if (tooLarge || (refusal && hasUnreadBody(req))) closeAfterAnswer(res);
          } else if (req.method === 'GET') {
            const refusal = trpcQueryRefusal(url);
            if (refusal) bodyRefusals.set(req, refusal);
          }
          trpc(req, res);
        })
        .catch((error: unknown) => {
          // Nothing above should throw; if it does, the request fails, never the process.
          options.logger.error({ err: error, operation: loggedProcedure(name) }, 'request failed');
          if (!res.headersSent) sendError(res, new AirlockError('internal', 'internal error'));
        });
      return;
    }
    if (openapi(req, res, url)) return;
    if (options.routes?.(req, res, url)) return;
    const reads = req.method === 'GET' || req.method === 'HEAD';
    if (!reads && readOnlyPaths.has(url.pathname)) {
      res.setHeader('allow', 'GET, HEAD');
      sendError(res, new AirlockError('method_not_allowed', `${req.method} is not served here`));
      return;
    }
    if (reads && url.pathname === '/healthz') {
      sendJson(res, 200, { ok: true });
      return;
    }
    if (reads && url.pathname === '/readyz') {
      void checkReadiness(options.kernel.context.store).then((readiness) => {
        if (readiness.ready) sendJson(res, 200, { ok: true, ...readiness });
        else sendError(res, new AirlockError(readiness.code, readiness.detail));
      });
      return;
    }
    if (reads && url.pathname === '/metrics' && metrics) {
      serveProtectedMetrics(req, res, {
        kernel: options.kernel,
        metrics,
        logger: options.logger,
        authThrottle,
      }).catch((error: unknown) => {
        sendError(
          res,
          error instanceof AirlockError ? error : new AirlockError('internal', 'internal error'),
        );
      });
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
  }
  const server = createServer(serverOptions, onRequest);
  // `Expect: 100-continue`: the 100 goes out when the body is about to be read (readBody),
  // so a caller refused first (credential, plane, body limit) never sends its body.
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    continueWhenRead(req, res);
    onRequest(req, res);
  });
  // Another expectation (RFC 9110 lets a server serve it): Node would answer a bare 417, no JSON.
  server.on('checkExpectation', onRequest);
  server.on('connection', (socket: Socket) => connections.accepted(socket));
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (String(req.headers.upgrade).toLowerCase() === 'websocket')
      sockets.upgrade(req, socket, head);
    else serveDespiteUpgrade(req, socket, onRequest);
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) =>
    connections.afterAnswers(socket, () => {
      const code = answerClientError(error, socket, {
        headersMs: serverOptions.headersTimeout,
        requestMs: serverOptions.requestTimeout,
      });
      // Counted as every error answer is: a flood of slow or oversized requests shows.
      if (code && metrics) metrics.errors.inc({ code });
    }),
  );
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
      options.kernel.credentialEnds.delete(sweepNow);
      credentials.close();
      sockets.close();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      connections.endIdle();
      // In-flight requests get a grace period, then every connection is ended.
      const force = setTimeout(() => server.closeAllConnections(), 2000);
      force.unref();
      await closed;
      clearTimeout(force);
    },
  };
}
