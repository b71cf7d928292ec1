import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { forTerminal } from '@airlock/core';
import { bearerTokenOf, requestTargetUrl } from '@airlock/core/wire';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest, isJSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import { credentialKind, isExecutorCredential } from './client-credential.js';
import { checkedByKernel, credentialRefusal } from './credential-check.js';
import {
  bodyProblem,
  INVALID_REQUEST,
  idInUse,
  readableId,
  reusedRequestId,
} from './json-rpc-envelope.js';
import type { AnswerAwaitingTransport } from './request-guard.js';
import { corsHeaders, foreignRequest, preflightHeaders } from './request-origin.js';

/** The path the gateway serves MCP at. */
export const MCP_PATH = '/mcp';
/** The largest MCP message the gateway reads: an HTTP body here, a stdio line (see `STDIO_LINE_LIMIT`). */
export const MCP_MESSAGE_LIMIT = 4 * 1024 * 1024;
/** A session with no request for this long ends (and so does its gateway run); default 30 min. */
export const DEFAULT_SESSION_IDLE_MS = 30 * 60 * 1000;
/** How many sessions one credential may hold open at once, by default. */
export const DEFAULT_MAX_SESSIONS_PER_CREDENTIAL = 32;
/** How many sessions the front holds open at once, by default. */
export const DEFAULT_MAX_SESSIONS = 1024;

/** What the HTTP front needs from the gateway: a session per client credential. */
export interface HttpGatewayOptions {
  /** Where to listen; default 127.0.0.1 (loopback only). */
  host?: string | undefined;
  port?: number | undefined;
  /** Origins (`scheme://host[:port]`) whose browser requests are served; others get 403. */
  allowOrigins?: readonly string[] | undefined;
  /** How long a session may go without a request before it ends; default 30 min. */
  sessionIdleMs?: number | undefined;
  /**
   * How many sessions one credential may hold open; past it an `initialize`
   * is refused with 429. Default {@link DEFAULT_MAX_SESSIONS_PER_CREDENTIAL}.
   */
  maxSessionsPerCredential?: number | undefined;
  /**
   * How many sessions the front holds open in all; past it an `initialize`
   * is refused with 503. Default {@link DEFAULT_MAX_SESSIONS}.
   */
  maxSessions?: number | undefined;
  /**
   * Checks a client credential with the kernel before anything is read or made.
   * @throws AirlockError (the SDK's) when the kernel refuses the credential.
   */
  verify(token: string, kind: 'agent' | 'member'): Promise<void>;
  /** Connects a new MCP server for a verified credential to the transport. */
  open(
    token: string,
    kind: 'agent' | 'member',
    transport: StreamableHTTPServerTransport,
  ): Promise<void>;
}

/** A listening HTTP front. */
export interface HttpGateway {
  readonly url: string;
  readonly sessions: number;
  close(): Promise<void>;
}

interface Session {
  transport: StreamableHTTPServerTransport;
  tokenHash: Buffer;
  /** When its last request arrived or its last POST answered. */
  lastActive: number;
  /** POSTs still being answered (a parked call keeps its POST open). */
  open: number;
  /** Ids of the requests each sent alone in a POST still open: a cancelled one's stream ends. */
  alone: Set<string | number>;
}

/** JSON-RPC's codes the front answers itself: the implementation's own, and a body that is no JSON. */
const SERVER_ERROR = -32000;
const PARSE_ERROR = -32700;

/** The request's target as a URL, or null when it is none (see core's `requestTargetUrl`). */
function targetOf(req: IncomingMessage): URL | null {
  return requestTargetUrl(req.url, 'http://gateway');
}

/** Refuses a request with the front's own error code (-32000) and `message`. */
function refuse(
  res: ServerResponse,
  status: number,
  message: string,
  req?: IncomingMessage,
  id: string | number | null = null,
): void {
  answerError(res, status, { code: SERVER_ERROR, message }, req, id);
}

/** Answers a request with a JSON-RPC error. */
function answerError(
  res: ServerResponse,
  status: number,
  error: { code: number; message: string },
  req?: IncomingMessage,
  id: string | number | null = null,
): void {
  // A refused request's body is never read: the connection closes after the answer.
  if (req && !req.complete) res.setHeader('connection', 'close');
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error, id }));
}

/** The sessions of each credential (by its hash), counting those still initializing. */
class SessionCounts {
  private readonly counts = new Map<string, number>();
  total = 0;
  of(key: string): number {
    return this.counts.get(key) ?? 0;
  }
  add(key: string): void {
    this.counts.set(key, this.of(key) + 1);
    this.total += 1;
  }
  remove(key: string): void {
    const left = this.of(key) - 1;
    if (left > 0) this.counts.set(key, left);
    else this.counts.delete(key);
    this.total -= 1;
  }
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MCP_MESSAGE_LIMIT) throw new RangeError('the request body is too large');
    chunks.push(chunk as Buffer);
  }
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

const hash = (token: string) => createHash('sha256').update(token).digest();

/**
 * Serves MCP over Streamable HTTP at `/mcp`. A request from a foreign
 * browser origin (or, on loopback, for a foreign host name) is refused
 * first; then every request carries a member or agent credential
 * (`Authorization: Bearer`); a new session's is checked with the kernel
 * before its body is read. A session belongs to the credential that opened
 * it (another one gets 403), answers only while that credential stands (each
 * request the kernel does not see itself checks it again: see
 * `checkedByKernel`), and ends after `sessionIdleMs` without a request.
 */
export async function listenHttp(options: HttpGatewayOptions): Promise<HttpGateway> {
  const sessions = new Map<string, Session>();
  const host = options.host ?? '127.0.0.1';
  const idleMs = options.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS;
  const perCredential = options.maxSessionsPerCredential ?? DEFAULT_MAX_SESSIONS_PER_CREDENTIAL;
  const maxSessions = options.maxSessions ?? DEFAULT_MAX_SESSIONS;
  const counts = new SessionCounts();

  const serve = async (
    session: Session,
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
  ) => {
    session.lastActive = Date.now();
    if (req.method !== 'POST') return session.transport.handleRequest(req, res, body);
    // The SDK's transport routes an answer by its id: a second request of that id would take
    // the stream of the first, which then never gets its answer.
    const guarded = session.transport as AnswerAwaitingTransport;
    const reused = reusedRequestId(body, (id) => guarded.requestInFlight?.(id) ?? false);
    if (reused !== null) return answerError(res, 400, idInUse(reused), req, reused);
    const alone = isJSONRPCRequest(body) ? body.id : null;
    if (alone !== null) session.alone.add(alone);
    session.open += 1;
    res.once('close', () => {
      if (alone !== null) session.alone.delete(alone);
      session.open -= 1;
      session.lastActive = Date.now();
    });
    return session.transport.handleRequest(req, res, body);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = targetOf(req);
    if (!url) return refuse(res, 400, 'the request target is not a valid URL path', req);
    if (url.pathname !== MCP_PATH) return refuse(res, 404, `MCP is served at ${MCP_PATH}`, req);
    const foreign = foreignRequest(req, {
      bindHost: host,
      allowOrigins: options.allowOrigins ?? [],
    });
    if (foreign) return refuse(res, 403, foreign, req);
    // An allowed browser origin: its page reads the answers (and the session id) only with CORS.
    const cors = corsHeaders(req);
    if (cors) {
      if (req.method === 'OPTIONS') {
        res.writeHead(204, preflightHeaders(req));
        return void res.end();
      }
      for (const [name, value] of Object.entries(cors)) res.setHeader(name, value);
    }
    const token = bearerTokenOf(req.headers.authorization);
    if (!token) return refuse(res, 401, 'send a member or agent credential as a bearer token', req);
    const kind = credentialKind(token);
    if (!kind && isExecutorCredential(token)) {
      return refuse(res, 403, 'the gateway takes a member or agent credential', req);
    }
    // No credential of any plane: unauthenticated, as the kernel answers a token it does not know.
    if (!kind) return refuse(res, 401, 'the token is not an Airlock credential', req);
    /** Checks the credential with the kernel; false once the refusal is answered. */
    const verified = async (id: string | number | null = null): Promise<boolean> => {
      try {
        await options.verify(token, kind);
        return true;
      } catch (error) {
        const refusal = credentialRefusal(error);
        if (!refusal) throw error;
        refuse(res, refusal.status, refusal.message, req, id);
        return false;
      }
    };
    const sessionId = req.headers['mcp-session-id'];
    const session = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (typeof sessionId === 'string') {
      // Another credential's session is answered as one that does not exist: a caller learns
      // nothing of sessions it does not hold, and starts its own as it would after a restart.
      if (!session || !timingSafeEqual(session.tokenHash, hash(token))) {
        return refuse(res, 404, 'no such MCP session; initialize a new one', req);
      }
      // A stream or an end of the session: checked before anything more is served.
      if (req.method !== 'POST' && !(await verified())) return;
    } else if (!(await verified())) {
      return;
    }
    let body: unknown;
    if (req.method === 'POST') {
      try {
        body = await readJson(req);
      } catch (error) {
        if (error instanceof RangeError) return refuse(res, 413, error.message, req);
        if (!(error instanceof SyntaxError)) return refuse(res, 400, (error as Error).message, req);
        // Answered as the SDK's own transport and the stdio front answer it.
        const parseError = { code: PARSE_ERROR, message: 'Parse error: the body is not JSON' };
        return answerError(res, 400, parseError, req);
      }
      // JSON that is no JSON-RPC message: -32600, as the stdio front answers it (the SDK says -32700).
      const problem = bodyProblem(body);
      if (problem !== null) {
        const invalid = { code: INVALID_REQUEST, message: `Invalid Request: ${problem}` };
        return answerError(res, 400, invalid, req, readableId(body));
      }
    }
    if (session) {
      // The credential may have been revoked since the session opened: a message the kernel
      // does not see is answered only while it still stands.
      if (req.method === 'POST' && !checkedByKernel(body) && !(await verified(readableId(body)))) {
        return;
      }
      return serve(session, req, res, body);
    }
    if (req.method !== 'POST' || !isInitializeRequest(body)) {
      return refuse(res, 400, 'start with an initialize request (no mcp-session-id yet)');
    }
    const tokenHash = hash(token);
    const key = tokenHash.toString('hex');
    const id = readableId(body);
    if (counts.of(key) >= perCredential) {
      const message = `this credential already holds ${perCredential} open MCP sessions; end one (DELETE) or wait for it to go idle`;
      return refuse(res, 429, message, req, id);
    }
    if (counts.total >= maxSessions) {
      return refuse(
        res,
        503,
        `the gateway already holds ${maxSessions} open MCP sessions`,
        req,
        id,
      );
    }
    // Counted from now: concurrent initializes cannot all slip under the cap.
    counts.add(key);
    let counted = true;
    const release = () => {
      if (!counted) return;
      counted = false;
      counts.remove(key);
    };
    const alone = new Set<string | number>();
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sessionId) => {
        sessions.set(sessionId, { transport, tokenHash, lastActive: Date.now(), open: 0, alone });
      },
    });
    // The SDK answers no cancelled request, and ends a POST's stream only once all its answers
    // went out: a cancelled call's POST stayed open, its session busy (never idle) for good.
    (transport as AnswerAwaitingTransport).requestCancelled = (id) => {
      if (alone.has(id)) transport.closeSSEStream(id);
    };
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
      release();
    };
    try {
      await options.open(token, kind, transport);
      await transport.handleRequest(req, res, body);
    } finally {
      // An initialize that made no session holds no place.
      if (!transport.sessionId || !sessions.has(transport.sessionId)) release();
    }
  };

  // Idle sessions end as if their client had sent DELETE: the gateway run gets its final answer.
  const sweep = setInterval(
    () => {
      const now = Date.now();
      for (const session of sessions.values()) {
        if (session.open === 0 && now - session.lastActive >= idleMs) {
          void session.transport.close().catch(() => {});
        }
      }
    },
    Math.max(10, Math.min(idleMs / 4, 60_000)),
  );
  sweep.unref();

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      // The message may repeat what a client sent: escaped, a terminal shows it and does not act on it.
      process.stderr.write(`airlock gateway: ${forTerminal((error as Error).message)}\n`);
      if (!res.headersSent) refuse(res, 500, 'the gateway failed on this request');
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port, address } = server.address() as AddressInfo;
  const shown = address.includes(':') ? `[${address}]` : address;
  return {
    url: `http://${shown}:${port}${MCP_PATH}`,
    get sessions() {
      return sessions.size;
    },
    async close() {
      clearInterval(sweep);
      await Promise.all([...sessions.values()].map((s) => s.transport.close()));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
