import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { isKernelError } from '../kernel-api.js';
import { credentialKind } from './gateway-session.js';

/** The path the gateway serves MCP at. */
export const MCP_PATH = '/mcp';
const BODY_LIMIT = 4 * 1024 * 1024;

/** What the HTTP front needs from the gateway: a session per client credential. */
export interface HttpGatewayOptions {
  host?: string | undefined;
  port?: number | undefined;
  /**
   * Checks a client credential with the kernel and connects a new MCP
   * server for it to the transport.
   * @throws KernelError when the kernel refuses the credential.
   */
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
}

function refuse(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > BODY_LIMIT) throw new RangeError('the request body is too large');
    chunks.push(chunk as Buffer);
  }
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

const hash = (token: string) => createHash('sha256').update(token).digest();

/**
 * Serves MCP over Streamable HTTP at `/mcp`. Every request carries a member or
 * agent credential (`Authorization: Bearer`); a session belongs to the
 * credential that opened it, and another one gets 403.
 */
export async function listenHttp(options: HttpGatewayOptions): Promise<HttpGateway> {
  const sessions = new Map<string, Session>();

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://gateway');
    if (url.pathname !== MCP_PATH) return refuse(res, 404, `MCP is served at ${MCP_PATH}`);
    const token = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!token) return refuse(res, 401, 'send a member or agent credential as a bearer token');
    const kind = credentialKind(token);
    if (!kind) return refuse(res, 403, 'the gateway takes a member or agent credential');
    let body: unknown;
    if (req.method === 'POST') {
      try {
        body = await readJson(req);
      } catch (error) {
        return refuse(res, error instanceof RangeError ? 413 : 400, (error as Error).message);
      }
    }
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const session = sessions.get(sessionId);
      if (!session) return refuse(res, 404, 'no such MCP session; initialize a new one');
      if (!timingSafeEqual(session.tokenHash, hash(token))) {
        return refuse(res, 403, 'this session belongs to another credential');
      }
      return session.transport.handleRequest(req, res, body);
    }
    if (req.method !== 'POST' || !isInitializeRequest(body)) {
      return refuse(res, 400, 'start with an initialize request (no mcp-session-id yet)');
    }
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, tokenHash: hash(token) });
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    try {
      await options.open(token, kind, transport);
    } catch (error) {
      if (isKernelError(error, 'unauthenticated')) return refuse(res, 401, error.detail);
      if (isKernelError(error, 'forbidden')) return refuse(res, 403, error.detail);
      // The kernel throttles failed authentications per address: the gateway's, here.
      if (isKernelError(error, 'rate_limited')) return refuse(res, 429, error.detail);
      throw error;
    }
    return transport.handleRequest(req, res, body);
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      process.stderr.write(`airlock gateway: ${(error as Error).message}\n`);
      if (!res.headersSent) refuse(res, 500, 'the gateway failed on this request');
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port, address } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  return {
    url: `http://${host}:${port}${MCP_PATH}`,
    get sessions() {
      return sessions.size;
    },
    async close() {
      await Promise.all([...sessions.values()].map((s) => s.transport.close()));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
