import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isLoopbackHost } from '@airlock/core';
import type { Logger } from 'pino';
import { authenticateToken, bearerToken, checkAccess } from '../api/access.js';
import { type AuthFailureThrottle, peerOf } from '../api/auth-throttle.js';
import { sendError } from '../api/rest.js';
import { AirlockError } from '../errors.js';
import type { Kernel } from '../kernel/kernel.js';
import { holdsOtherWorkspaces } from '../store/shared-kernel.js';
import { asStoreError } from '../store/store-errors.js';
import { GaugeOutageLog } from './gauge-outage-log.js';
import type { KernelMetrics } from './registry.js';

/** Who may read `GET /metrics` on the main port: a member credential, like the decisions. */
export const METRICS_ACCESS = { name: 'metrics.scrape', planes: ['member'] } as const;

/**
 * The exposition text without the samples of other workspaces than
 * `workspaceId`: a sample with a `workspace` label of another value is left
 * out; comments stay, and so do the samples without that label (process-wide
 * figures) unless `processWide` is false.
 */
export function onlyWorkspace(text: string, workspaceId: string, processWide = true): string {
  const own = `workspace=${JSON.stringify(workspaceId)}`;
  return text
    .split('\n')
    .filter((line) => {
      if (line === '' || line.startsWith('#') || line.includes(own)) return true;
      return processWide && !line.includes('workspace="');
    })
    .join('\n');
}

/**
 * The exposition text with every `file` label cut to the file's own name: a
 * member of one workspace reads the process-wide figures too, and the
 * server's directories are no business of theirs (the operator's
 * `--metrics-listen` scrape keeps the whole path).
 */
export function withoutServerPaths(text: string): string {
  return text.replace(
    /\bfile="((?:[^"\\]|\\.)*)"/g,
    (_label, path: string) => `file="${path.slice(path.lastIndexOf('/') + 1)}"`,
  );
}

/** One outage log per set of metrics: the main port's scrapes and the listener's share it. */
const outageLogs = new WeakMap<KernelMetrics, GaugeOutageLog>();

function outageLogOf(metrics: KernelMetrics, logger: Logger): GaugeOutageLog {
  let log = outageLogs.get(metrics);
  if (!log) {
    log = new GaugeOutageLog(logger);
    outageLogs.set(metrics, log);
  }
  return log;
}

/**
 * Answers a scrape with the metrics in the Prometheus text format; with
 * `member`, only that workspace's per-workspace samples, the process-wide
 * ones only when `processWide`, and file labels without the server's
 * directories.
 */
export async function sendMetrics(
  res: ServerResponse,
  metrics: KernelMetrics,
  logger: Logger,
  member?: { workspaceId: string; processWide: boolean },
): Promise<void> {
  try {
    const errors: unknown[] = [];
    const rendered = await metrics.render((error) => errors.push(error));
    outageLogOf(metrics, logger).scraped(errors);
    const text =
      member === undefined
        ? rendered
        : withoutServerPaths(onlyWorkspace(rendered, member.workspaceId, member.processWide));
    res.writeHead(200, {
      'content-type': metrics.contentType,
      'content-length': Buffer.byteLength(text),
    });
    res.end(text);
  } catch (error) {
    logger.error({ err: error }, 'metrics scrape failed');
    sendError(res, new AirlockError('internal', 'the metrics could not be read'));
  }
}

/**
 * `GET /metrics` on the kernel's own port: a member credential of any
 * workspace may read it, with the per-workspace samples of its own
 * workspace only, and the process-wide figures (which span the kernel) only
 * while the store holds no other workspace; the unguarded
 * `--metrics-listen` listener, an operator's, shows every workspace.
 * @throws AirlockError unauthenticated (401) or forbidden (403), or store_unavailable (503)
 *   while the store cannot check the token; answered by the caller.
 */
export async function serveProtectedMetrics(
  req: IncomingMessage,
  res: ServerResponse,
  options: {
    kernel: Kernel;
    metrics: KernelMetrics;
    logger: Logger;
    authThrottle: AuthFailureThrottle | null;
  },
): Promise<void> {
  let principal: Awaited<ReturnType<typeof authenticateToken>>;
  try {
    principal = await authenticateToken(
      options.kernel,
      bearerToken(req.headers.authorization),
      options.authThrottle ? { throttle: options.authThrottle, peer: peerOf(req) } : null,
    );
  } catch (error) {
    // The token is checked in the store: while it does not answer, a 503 to retry, not a 500.
    throw asStoreError(error);
  }
  checkAccess(METRICS_ACCESS, principal, null);
  let shared: boolean;
  try {
    shared = await holdsOtherWorkspaces(options.kernel.context.store, principal.workspace_id);
  } catch (error) {
    throw asStoreError(error);
  }
  // Tenants sharing a kernel do not see each other's traffic in its process-wide figures.
  await sendMetrics(res, options.metrics, options.logger, {
    workspaceId: principal.workspace_id,
    processWide: !shared,
  });
}

/** A listener that serves only `GET /metrics`, without credentials (`--metrics-listen`). */
export interface MetricsListener {
  url: string;
  close(): Promise<void>;
}

/**
 * Serves the metrics, unauthenticated, on an address of their own (keep it
 * on a private interface): everything but `GET /metrics` answers 404.
 * @throws Error when the address is taken.
 */
export async function startMetricsListener(options: {
  host: string;
  port: number;
  metrics: KernelMetrics;
  logger: Logger;
}): Promise<MetricsListener> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics') {
      sendError(
        res,
        new AirlockError('not_found', `no route ${path}; this address serves /metrics`),
      );
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('allow', 'GET, HEAD');
      sendError(res, new AirlockError('method_not_allowed', `${req.method} is not served here`));
      return;
    }
    void sendMetrics(res, options.metrics, options.logger);
  });
  const shownHost = options.host.includes(':') ? `[${options.host}]` : options.host;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      // Said as the metrics address's own problem, not the kernel's port (--port).
      reject(
        error.code === 'EADDRINUSE'
          ? new Error(
              `--metrics-listen ${shownHost}:${options.port}: another process listens there; pick another address for the metrics`,
            )
          : error,
      );
    });
    server.listen(options.port, options.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  if (!isLoopbackHost(options.host)) {
    options.logger.warn(
      { host: options.host, port },
      'metrics: /metrics answers anyone who reaches this address, without a token; keep it on loopback or a private network',
    );
  }
  return {
    url: `http://${shownHost}:${port}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
