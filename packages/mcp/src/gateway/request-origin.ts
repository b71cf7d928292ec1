import type { IncomingMessage } from 'node:http';
import { isLoopbackHost } from '@airlock/core';

/** Where the gateway listens and which browser origins it serves. */
export interface OriginPolicy {
  /** The address the HTTP front is bound to. */
  readonly bindHost: string;
  /** Origins allowed besides none (`--allow-origin`), as `scheme://host[:port]`. */
  readonly allowOrigins: readonly string[];
}

/** True for a host of this machine's loopback, `*.localhost` included (browsers resolve it so). */
export function isLoopback(host: string): boolean {
  return isLoopbackHost(host, { localhostSubdomains: true });
}

/** An origin as browsers send it: lower case, no trailing slash. */
export function normalOrigin(origin: string): string {
  return origin.trim().toLowerCase().replace(/\/+$/, '');
}

function hostName(hostHeader: string): string {
  try {
    return new URL(`http://${hostHeader}`).hostname;
  } catch {
    return '';
  }
}

/**
 * Why a request comes from where the gateway must not serve it (the MCP
 * specification's DNS-rebinding defence), or null when it may be served:
 * a browser `Origin` not in the allowed list is refused; on a loopback bind
 * a `Host` that is not a loopback name is refused too (a rebound DNS name).
 * Clients that send no `Origin` (every non-browser MCP client) are served;
 * a browser of an allowed origin gets CORS headers ({@link corsHeaders}).
 */
export function foreignRequest(req: IncomingMessage, policy: OriginPolicy): string | null {
  const origin = req.headers.origin;
  if (origin !== undefined) {
    const allowed = policy.allowOrigins.map(normalOrigin);
    if (!allowed.includes(normalOrigin(origin))) {
      return `requests from the origin ${origin.slice(0, 200)} are refused; start the gateway with --allow-origin ${origin.slice(0, 200)} to serve it`;
    }
  }
  if (isLoopback(policy.bindHost)) {
    const host = req.headers.host ?? '';
    if (!isLoopback(hostName(host))) {
      return `the gateway listens on loopback; the host name ${host.slice(0, 200)} is not one of its names`;
    }
  }
  return null;
}

/** The request headers a browser client of MCP's Streamable HTTP sends besides the simple ones. */
const CLIENT_HEADERS =
  'authorization, content-type, accept, mcp-session-id, mcp-protocol-version, last-event-id';

/**
 * The CORS headers of an answer to a request from an allowed browser origin
 * (see {@link foreignRequest}), or null for a request without an `Origin`:
 * the origin itself (never `*`), and the session id header, which a browser
 * client must read to go on with its session. A bearer token is no cookie,
 * so no credentials are allowed.
 */
export function corsHeaders(req: IncomingMessage): Record<string, string> | null {
  const origin = req.headers.origin;
  if (origin === undefined) return null;
  return {
    'access-control-allow-origin': origin,
    'access-control-expose-headers': 'mcp-session-id',
    vary: 'Origin',
  };
}

/**
 * The headers of the answer to a browser's preflight (`OPTIONS`) from an
 * allowed origin: the methods and headers an MCP client uses. A preflight
 * carries no credential, so it is answered before any is asked for.
 */
export function preflightHeaders(req: IncomingMessage): Record<string, string> {
  return {
    ...corsHeaders(req),
    'access-control-allow-methods': 'GET, POST, DELETE',
    'access-control-allow-headers': CLIENT_HEADERS,
    'access-control-max-age': '600',
  };
}
