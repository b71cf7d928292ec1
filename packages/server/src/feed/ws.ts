import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import {
  EXECUTOR_CABLE_PATH,
  feedPathWorkspaceSegment,
  SUBSCRIPTION_CONTRACTS,
} from '@airlock/core';
import { WebSocket, WebSocketServer } from 'ws';
import {
  authenticateToken,
  bearerToken,
  checkAccess,
  checkFeedRun,
  checkRunFence,
  fenceOf,
} from '../api/access.js';
import { type AuthFailureThrottle, peerOf } from '../api/auth-throttle.js';
import { invalidInput } from '../api/input-problems.js';
import type { RateLimiter } from '../api/rate-limit.js';
import { badRequestTarget, requestTarget } from '../api/request-target.js';
import { AirlockError, type ErrorCode } from '../errors.js';
import type { Kernel } from '../kernel/kernel.js';
import { redactUrl } from '../logging/redact.js';
import type { KernelMetrics } from '../metrics/registry.js';
import { asStoreError } from '../store/store-errors.js';
import type { CredentialWatch } from './credential-watch.js';
import { fencedSink } from './fence.js';
import { FrameWriter, MAX_BUFFERED } from './frame-writer.js';
import type { FeedHub } from './hub.js';
import { claimedLater, nudgeFor } from './nudges.js';
import { prunedResume, resumeAfter, sequenceNumberOf } from './pruned-position.js';

/** The close reason every feed and cable hears when the kernel shuts down (code 1001). */
const SHUTDOWN_REASON = 'the kernel is shutting down';

/** How long a client has to answer the shutdown's close before its connection is cut. */
const SHUTDOWN_CLOSE_MS = 1000;

/** The close code of a socket whose credential was revoked (or its application removed). */
export const CREDENTIAL_REVOKED_CLOSE = 4401;

/** The feed's `run_id` query parameter, as its contract declares it. */
const FEED_RUN_QUERY = SUBSCRIPTION_CONTRACTS.feed.query.pick({ run_id: true });

/**
 * The error code a socket's protocol error counts as: ws refuses a message
 * over `maxPayload` (and closes 1009), any other broken frame (1002, 1007).
 */
function protocolErrorCode(error: Error): ErrorCode {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH' ? 'payload_too_large' : 'invalid_input';
}

function refuse(socket: Duplex, error: AirlockError): void {
  // The client went away while its upgrade was read: nobody to answer.
  if (socket.destroyed) return;
  const body = JSON.stringify(error.toBody());
  const retry =
    error.retryAfterSeconds !== undefined ? `retry-after: ${error.retryAfterSeconds}\r\n` : '';
  socket.end(
    `HTTP/1.1 ${error.status} ${error.code}\r\ncontent-type: application/json\r\n${retry}` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

/**
 * Refuses an upgrade that is no WebSocket handshake (RFC 6455 §4.2.1) with
 * a JSON error of its own, where the ws library would answer it in HTML.
 * @throws AirlockError method_not_allowed, or invalid_input naming what is wrong.
 */
function checkHandshake(req: IncomingMessage): void {
  if (req.method !== 'GET') {
    throw new AirlockError('method_not_allowed', 'a WebSocket handshake is a GET request');
  }
  const key = req.headers['sec-websocket-key'];
  if (typeof key !== 'string' || !/^[+/0-9A-Za-z]{22}==$/.test(key.trim())) {
    throw new AirlockError(
      'invalid_input',
      'a WebSocket handshake needs a Sec-WebSocket-Key header: 16 random bytes in base64',
    );
  }
  if (req.headers['sec-websocket-version'] !== '13') {
    throw new AirlockError(
      'invalid_input',
      'this server speaks WebSocket version 13: send Sec-WebSocket-Version: 13',
    );
  }
}

/**
 * The sequence number to resume after: a number, or `latest` for the
 * workspace's head, so a fresh client skips the history it does not need.
 */
async function resolveAfter(
  kernel: Kernel,
  workspaceId: string,
  value: string | null,
): Promise<number> {
  if (value === null || value === '') return 0;
  const after = value === 'latest' ? value : sequenceNumberOf(value);
  if (after === undefined) {
    throw new AirlockError(
      'invalid_input',
      'after must be a nonnegative integer sequence number or latest',
    );
  }
  return resumeAfter(kernel.context.store, workspaceId, after);
}

function decodeSegment(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    throw new AirlockError('invalid_input', 'a path segment is not valid percent-encoding');
  }
}

/**
 * Refuses a parameter the socket's contract does not read (a misspelt
 * `run_id` would stream the whole workspace, a misspelt `after` start from
 * the beginning), and one given twice (a proxy could read the other one).
 * @throws AirlockError invalid_input naming the parameter.
 */
function checkSocketParameters(url: URL, socket: 'feed' | 'executor.cable'): void {
  const known = Object.keys(SUBSCRIPTION_CONTRACTS[socket].query.shape);
  for (const name of new Set(url.searchParams.keys())) {
    if (!known.includes(name)) {
      throw new AirlockError(
        'invalid_input',
        `${name} is no parameter of this socket; it reads ${known.join(', ')}`,
      );
    }
    if (url.searchParams.getAll(name).length > 1) {
      throw new AirlockError('invalid_input', `${name} is given more than once`);
    }
  }
}

/** The last message of a socket whose resume position was pruned (then close 4410). */
function resyncFrame(refusal: AirlockError, after: number): string {
  return JSON.stringify({ type: 'resync', ...refusal.toBody().error, after });
}

/**
 * The lifecycle feed (`/api/v1/workspaces/{ws}/feed?run_id=&after=`) and the
 * executor cable (`/executor_api/v1/cable?after=`) over WebSocket; both resume
 * from a sequence number (or start at `after=latest`, the head, which the
 * `ready` message names). Returns the HTTP upgrade handler. With metrics,
 * each refused upgrade counts its error code, and each socket closed on an
 * error counts one: `feed_position_pruned` (resync), `unavailable` (a client
 * too far behind, close 1013), or the client's broken frame.
 */
export function createSocketHandler(options: {
  kernel: Kernel;
  hub: FeedHub;
  authThrottle?: AuthFailureThrottle | null | undefined;
  metrics?: KernelMetrics | null | undefined;
  /** Per-credential request limit, shared with REST and tRPC: an upgrade counts as one request. */
  rateLimiter?: RateLimiter | null | undefined;
  /** Ends a socket whose credential stops working (the server's, shared with tRPC). */
  credentials: CredentialWatch;
  /**
   * How often each open socket is pinged; one that answered nothing (no pong,
   * no message) since the last ping is ended, so a client that vanished
   * without a close gives its feed back (default 30 s).
   */
  heartbeatMs?: number | undefined;
}) {
  const { credentials } = options;
  const errors = options.metrics?.errors;
  // No permessage-deflate: feed frames are written prebuilt to the socket (FrameWriter).
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: 64 * 1024,
    perMessageDeflate: false,
  });
  // Sockets that answered nothing since the last ping (browsers and ws clients pong on their own).
  const silent = new WeakSet<WebSocket>();
  const heartbeat = setInterval(() => {
    for (const client of wss.clients) {
      if (silent.has(client)) client.terminate();
      else {
        silent.add(client);
        client.ping();
      }
    }
  }, options.heartbeatMs ?? 30_000);
  heartbeat.unref();
  const handle = async (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    // Node hands over an upgrade's socket with no 'error' listener: a client that resets it
    // while the credential and the store are read would otherwise end the process.
    const dropOnError = () => socket.destroy();
    socket.on('error', dropOnError);
    try {
      checkHandshake(req);
      const url = requestTarget(req);
      if (!url) throw badRequestTarget();
      const feed = feedPathWorkspaceSegment(url.pathname);
      if (feed === null && url.pathname !== EXECUTOR_CABLE_PATH) {
        throw new AirlockError('not_found', `no socket at ${url.pathname}`);
      }
      const token = bearerToken(req.headers.authorization, url.searchParams.get('access_token'));
      const principal = await authenticateToken(
        options.kernel,
        token,
        options.authThrottle ? { throttle: options.authThrottle, peer: peerOf(req) } : null,
      );
      if (feed !== null) {
        checkAccess(SUBSCRIPTION_CONTRACTS.feed, principal, { workspace_id: decodeSegment(feed) });
      } else {
        checkAccess(SUBSCRIPTION_CONTRACTS['executor.cable'], principal, null);
      }
      // Each opening reads the log from its position: it counts against the limit as a request
      // does, once admitted (a refusal for the plane or workspace spends nothing, as on REST;
      // failed authentications stay under the per-peer throttle).
      options.rateLimiter?.take(principal);
      const runId = feed !== null ? url.searchParams.get('run_id') : null;
      // Checked as the feed's contract declares it (`after` may be `latest`, read below).
      const checkedRun = FEED_RUN_QUERY.safeParse({ run_id: runId ?? undefined });
      if (!checkedRun.success) throw invalidInput(checkedRun.error.issues);
      // Another application's run is not there for an agent credential, as on REST.
      if (feed !== null) await checkRunFence(options.kernel, principal, { run_id: runId });
      checkSocketParameters(url, feed !== null ? 'feed' : 'executor.cable');
      const after = await resolveAfter(
        options.kernel,
        principal.workspace_id,
        url.searchParams.get('after'),
      );
      const pruned = await prunedResume(options.kernel.context.store, {
        workspaceId: principal.workspace_id,
        runId,
        after,
      });
      if (!pruned) await checkFeedRun(options.kernel, principal, runId);
      if (socket.destroyed) return;
      credentials.admit(token ?? '');
      wss.handleUpgrade(req, socket, head, (ws) => {
        // The WebSocket listens for the socket's errors from here on.
        socket.off('error', dropOnError);
        if (pruned) {
          // A message a client reads (not a refused upgrade, which a browser cannot see), then a close.
          ws.send(resyncFrame(pruned, after));
          ws.close(4410, 'feed_position_pruned');
          errors?.inc({ code: pruned.code });
          return;
        }
        // Set once subscribed: a client dropped stops its catch-up's reads at once, not at the close.
        let unsubscribe = () => {};
        const tooFarBehind = () => {
          unsubscribe();
          ws.close(1013, 'too far behind; reconnect with after=');
          errors?.inc({ code: 'unavailable' });
        };
        const sendFrame = (frame: string) => {
          if (ws.readyState !== WebSocket.OPEN) return false;
          if (ws.bufferedAmount > MAX_BUFFERED) {
            tooFarBehind();
            return false;
          }
          ws.send(frame);
          return true;
        };
        const send = (message: unknown) => sendFrame(JSON.stringify(message));
        const frames = new FrameWriter(ws, tooFarBehind);
        const heard = () => silent.delete(ws);
        send({ type: 'ready', after });
        const applicationId = principal.agent_application_id;
        const subscription = options.hub.subscribe({
          workspaceId: principal.workspace_id,
          runId,
          after,
          // An agent's feed and an executor's cable see only their own application's runs.
          ...fencedSink(options.kernel.context.store, fenceOf(principal), {
            deliver: (items) => {
              if (feed !== null) frames.push(items);
              else {
                const stale = claimedLater(items.map((item) => item.row));
                for (const [i, item] of items.entries()) {
                  if (stale.has(i)) continue;
                  const frame = item.frameFor(applicationId, (view) =>
                    nudgeFor(view, applicationId),
                  );
                  if (frame !== null && !sendFrame(frame)) return;
                }
              }
            },
            // Retention pruned what a catch-up was about to read: as at the start, after what was
            // sent. Any other refusal (the feed could not go on) closes as a client too far behind
            // does: it resumes from its last event.
            refuse: (refusal, position) => {
              if (refusal.code !== 'feed_position_pruned') {
                tooFarBehind();
                return;
              }
              frames.finish(resyncFrame(refusal, position), () => {
                ws.close(4410, 'feed_position_pruned');
              });
              errors?.inc({ code: refusal.code });
            },
            // A catch-up reads its next page once the client has read this one (its frames, or the
            // cable's nudges, which go through the same socket). A client that read it is alive
            // though the pong to a ping still waits behind what it has yet to read.
            drained: async () => {
              if (await frames.drained()) heard();
            },
          }),
        });
        unsubscribe = () => subscription.close();
        ws.on('pong', heard);
        ws.on('message', (data) => {
          heard();
          if (data.toString() === 'ping') send({ type: 'pong' });
        });
        const unwatch = credentials.watch(token ?? '', () => {
          ws.close(CREDENTIAL_REVOKED_CLOSE, 'credential revoked');
        });
        ws.on('close', () => {
          unwatch();
          subscription.close();
        });
        ws.on('error', (error) => {
          errors?.inc({ code: protocolErrorCode(error) });
          subscription.close();
        });
      });
    } catch (thrown) {
      const error = asStoreError(thrown);
      if (!(error instanceof AirlockError)) {
        // As REST logs it: the path alone (its query may carry the token), redacted.
        options.kernel.context.logger.error(
          { err: error, path: redactUrl(requestTarget(req)?.pathname) },
          'request failed',
        );
      }
      const refusal =
        error instanceof AirlockError ? error : new AirlockError('internal', 'internal error');
      errors?.inc({ code: refusal.code });
      refuse(socket, refusal);
    }
  };
  return {
    upgrade: (req: IncomingMessage, socket: Duplex, head: Buffer) => void handle(req, socket, head),
    close: () => {
      clearInterval(heartbeat);
      // Each client hears why (1001, going away: reconnect, to this kernel's successor or
      // another); one that does not answer the close in time is cut.
      for (const client of wss.clients) client.close(1001, SHUTDOWN_REASON);
      const cut = setTimeout(() => {
        for (const client of wss.clients) client.terminate();
      }, SHUTDOWN_CLOSE_MS);
      cut.unref();
      wss.close();
    },
  };
}
