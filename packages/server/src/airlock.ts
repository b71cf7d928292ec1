import { join, resolve } from 'node:path';
import pino, { type Logger } from 'pino';
import { type AuthFailureLimit, DEFAULT_AUTH_FAILURE_LIMIT } from './api/auth-throttle.js';
import { DEFAULT_RATE_LIMIT, type RateLimitOptions } from './api/rate-limit.js';
import { FeedHub } from './feed/hub.js';
import { runEndsHeardThrough } from './feed/run-ends.js';
import { type HttpHandle, type ServerTimeouts, startHttpServer } from './http-server.js';
import { Kernel } from './kernel/kernel.js';
import { hearRunEndsThrough } from './kernel/loop/model-stop.js';
import type { RetentionOptions } from './kernel/retention/retention.js';
import { fenceIfCopied } from './kernel/verbs/restore-fence.js';
import { LOG_REDACTION } from './logging/redact.js';
import { type MetricsListener, startMetricsListener } from './metrics/endpoint.js';
import { connectMetrics } from './metrics/kernel-sources.js';
import { createMetrics, type KernelMetrics } from './metrics/registry.js';
import type { NotificationsConfig } from './notifications/config.js';
import {
  type DeliveryTuning,
  type Notifications,
  startNotifications,
} from './notifications/notifications.js';
import { defaultPublicUrl } from './notifications/payload.js';
import type { OpenAISettings } from './providers/openai.js';
import { defaultProviders } from './providers/registry.js';
import { forgetCredentials } from './store/accounts.js';
import { warnOfOtherSessions } from './store/pending-upgrade.js';
import { holdDataDir } from './store/sqlite/kernel-lock.js';
import { Store, type StoreLocation } from './store/store.js';
import type { CallTracing } from './tracing/call-tracing.js';
import { startTracing } from './tracing/start-tracing.js';

/** The package version reported by the OpenAPI document. */
export const SERVER_VERSION = '0.0.0';

/** Everything `airlock serve` (and a test) needs to run a kernel. */
export interface AirlockOptions extends StoreLocation {
  port?: number | undefined;
  host?: string | undefined;
  parkTtlMs?: number | undefined;
  defaultLeaseMs?: number | undefined;
  /** The longest lease a claim or heartbeat is granted, whatever it asks for; default 1 h. */
  maxLeaseMs?: number | undefined;
  sweepIntervalMs?: number | undefined;
  /** How often an open socket's credential is asked about again, to end it once revoked (default 10 s). */
  credentialRecheckMs?: number | undefined;
  /** Live feeds (sockets, cables, tRPC subscriptions) one credential may hold open (default 1000). */
  maxFeeds?: number | undefined;
  /** Largest request body in bytes; default 1 MiB. */
  bodyLimit?: number | undefined;
  logger?: Logger | undefined;
  /** Checks every REST answer against its schema; default on under vitest. */
  validateOutputs?: boolean | undefined;
  /**
   * Per-credential request limit on the agent and member planes. Absent: off
   * on a store embedded in this process (SQLite, whose one kernel serves one
   * data directory), {@link DEFAULT_RATE_LIMIT} on a shared database
   * (PostgreSQL); null: off everywhere.
   */
  rateLimit?: RateLimitOptions | null | undefined;
  /**
   * Per-peer limit on failed authentications, on every store and surface.
   * Absent: {@link DEFAULT_AUTH_FAILURE_LIMIT}; null: off.
   */
  authFailureLimit?: AuthFailureLimit | null | undefined;
  /** Limits on slow clients; see {@link DEFAULT_TIMEOUTS}. */
  timeouts?: Partial<ServerTimeouts> | undefined;
  /**
   * Retention pruning; its export directory defaults to `<data-dir>/exports`
   * on an embedded store (SQLite), `./airlock-exports` on a database server
   * (PostgreSQL).
   */
  retention?: Partial<RetentionOptions> | undefined;
  /**
   * Prometheus metrics: recorded, and served at `GET /metrics` to a member
   * credential. Default true; false records nothing.
   */
  metrics?: boolean | undefined;
  /** Also serves `GET /metrics` without credentials on this address (`--metrics-listen`). */
  metricsListen?: { host: string; port: number } | undefined;
  /** Exports the spans of calls over OTLP/HTTP to this base URL; off when absent. */
  otlpEndpoint?: string | undefined;
  /** Injectable clock (epoch ms). */
  clock?: (() => number) | undefined;
  openai?: OpenAISettings | undefined;
  /** Notification channels and routing (`--notifications FILE`); none when absent. */
  notifications?: NotificationsConfig | undefined;
  /** The delivery worker's tuning (tests shorten its backoff). */
  notificationTuning?: DeliveryTuning | undefined;
}

/** A running kernel with its HTTP surface. */
export interface Airlock {
  store: Store;
  kernel: Kernel;
  hub: FeedHub;
  http: HttpHandle;
  url: string;
  /** The kernel's metrics; null when off. */
  metrics: KernelMetrics | null;
  /** The unauthenticated metrics address, when `metricsListen` was given. */
  metricsListener: MetricsListener | null;
  /** The notification outbox's worker and routes; null without channels. */
  notifications: Notifications | null;
  /** Stops serving, finishes in-flight steps, closes the store. */
  close(): Promise<void>;
}

/**
 * Opens the store (migrating it), starts the kernel's clocks and run loop,
 * and serves HTTP and WebSocket. A SQLite data directory is held
 * exclusively (an OS file lock, kernel-lock.ts) until close; a failed start lets it go.
 * @throws DataDirInUseError when another live kernel serves the SQLite data directory.
 * @throws Error when the store cannot be opened or the port is taken, or on a
 *   body limit that is not a whole number of bytes above 0.
 */
export async function startAirlock(options: AirlockOptions = {}): Promise<Airlock> {
  const { bodyLimit } = options;
  // NaN, 0 or a negative number would turn the limit off rather than refuse every body.
  if (bodyLimit !== undefined && !(Number.isSafeInteger(bodyLimit) && bodyLimit > 0)) {
    throw new Error(`bodyLimit must be a whole number of bytes above 0, not ${bodyLimit}`);
  }
  const logger = options.logger ?? pino({ level: 'silent', redact: LOG_REDACTION });
  // A wrong endpoint is refused before the data directory is taken or the store opened.
  const tracing: CallTracing | null = options.otlpEndpoint
    ? await startTracing({ endpoint: options.otlpEndpoint, logger })
    : null;
  const started: Partial<Parts> = { tracing };
  let releaseDataDir = () => {};
  try {
    // Before the store is opened (or created): a second kernel on one SQLite directory is
    // refused, and `airlock restore` refuses while a kernel serves it.
    if (!options.databaseUrl) {
      releaseDataDir = holdDataDir(options.dataDir ?? '.airlock', {
        retaken: () =>
          logger.warn(
            'kernel.lock.sqlite was removed while this kernel served the data directory: made and locked again, so a second kernel cannot start on it',
          ),
        lost: (error) =>
          logger.error(
            { holder: error.holder },
            'kernel.lock.sqlite was removed while this kernel served the data directory, and another process locked the new one: two kernels may serve one store; stop one',
          ),
      });
    }
    return await startParts({ ...options, logger }, started, releaseDataDir);
  } catch (error) {
    // A failed start lets go of what it took: the port, the store, the data directory.
    await stopParts(started).catch(() => {});
    releaseDataDir();
    throw error;
  }
}

/** What a start has brought up, in order; a failed start stops the ones it got to. */
interface Parts {
  tracing: CallTracing | null;
  store: Store;
  kernel: Kernel;
  hub: FeedHub;
  notifications: Notifications | null;
  http: HttpHandle;
  metricsListener: MetricsListener | null;
}

/**
 * Stops serving, finishes in-flight steps, closes the store: the reverse of
 * the start, except that the kernel (its sweep, its runs' steps) stops before
 * notifications: every event it commits while stopping (a park that expires
 * meanwhile) still gets its outbox rows, for this worker's last sends or the
 * next start's.
 */
async function stopParts(parts: Partial<Parts>): Promise<void> {
  await parts.metricsListener?.close();
  await parts.http?.close();
  await parts.kernel?.stop();
  await parts.notifications?.close();
  await parts.hub?.stop();
  await parts.store?.close();
  await parts.tracing?.shutdown();
}

async function startParts(
  options: AirlockOptions & { logger: Logger },
  parts: Partial<Parts>,
  releaseDataDir: () => void,
): Promise<Airlock> {
  const { logger } = options;
  const tracing = parts.tracing ?? null;
  const store = await Store.open(
    options,
    options.clock,
    options.databaseUrl ? { beforeMigrating: warnOfOtherSessions(logger) } : {},
  );
  parts.store = store;
  // Before any executor is served: a restored copy nobody fenced may hold calls that already ran.
  const fenced = await fenceIfCopied(store);
  if (fenced) {
    logger.warn(
      {
        fenced: fenced.map(({ run_id, key, tool_name, was }) => ({ run_id, key, tool_name, was })),
      },
      `the database is a copy of the one this store was last served from (a restore): fenced ${fenced.length} call(s) granted or claimed in it; each holds its run until a person retries it or abandons or stops the run`,
    );
  }
  const metrics = options.metrics === false ? null : createMetrics();
  const kernel = new Kernel({
    metrics,
    tracing,
    store,
    logger,
    parkTtlMs: options.parkTtlMs,
    defaultLeaseMs: options.defaultLeaseMs,
    maxLeaseMs: options.maxLeaseMs,
    sweepIntervalMs: options.sweepIntervalMs,
    providers: defaultProviders(options.openai),
    retention: {
      ...options.retention,
      exportDir:
        options.retention?.exportDir ??
        (store.dataDir ? join(store.dataDir, 'exports') : resolve('airlock-exports')),
    },
  });
  const hub = new FeedHub(store, logger);
  await hub.start();
  parts.hub = hub;
  // A revocation committed anywhere (another kernel, the operator's CLI) ends what it held here now.
  hub.onCredentialsEnded(() => {
    // Tokens this process resolved in the last second would still pass from its cache.
    forgetCredentials(store);
    for (const ended of kernel.credentialEnds) ended();
  });
  // Several kernels share a database server: a run another one ends aborts this one's model request.
  if (!store.dataDir) hearRunEndsThrough(kernel.context, runEndsHeardThrough(hub));
  if (metrics) connectMetrics(metrics, { store, hub, pruner: kernel.pruner });
  // A copy: the kernel's own URL becomes the public URL once it listens, when none was given.
  const notifyConfig = options.notifications && { ...options.notifications };
  const notifications = notifyConfig
    ? startNotifications({
        kernel,
        config: notifyConfig,
        logger,
        tuning: options.notificationTuning,
      })
    : null;
  parts.notifications = notifications;
  kernel.start();
  parts.kernel = kernel;
  const http = await startHttpServer({
    kernel,
    hub,
    logger,
    port: options.port ?? 0,
    host: options.host ?? '127.0.0.1',
    bodyLimit: options.bodyLimit ?? 1024 * 1024,
    credentialRecheckMs: options.credentialRecheckMs,
    maxFeeds: options.maxFeeds,
    validateOutputs: options.validateOutputs ?? process.env.VITEST !== undefined,
    version: SERVER_VERSION,
    rateLimit:
      options.rateLimit === undefined
        ? store.dataDir
          ? null
          : DEFAULT_RATE_LIMIT
        : options.rateLimit,
    authFailureLimit:
      options.authFailureLimit === undefined
        ? DEFAULT_AUTH_FAILURE_LIMIT
        : options.authFailureLimit,
    timeouts: options.timeouts,
    metrics,
    tracing,
    routes: notifications?.routes,
  });
  parts.http = http;
  if (notifyConfig && !notifyConfig.publicUrl) {
    const host = options.host ?? '127.0.0.1';
    notifyConfig.publicUrl = defaultPublicUrl(http.url, host);
    if (notifyConfig.publicUrl === undefined) {
      logger.warn(
        `the kernel listens on every interface (${host}) and the notifications configuration names no public_url: notices carry no inbox link and mails no approve or deny links until public_url says where people reach this kernel`,
      );
    }
  }
  const metricsListener =
    metrics && options.metricsListen
      ? await startMetricsListener({ ...options.metricsListen, metrics, logger })
      : null;
  parts.metricsListener = metricsListener;
  let closing: Promise<void> | undefined;
  return {
    store,
    kernel,
    hub,
    http,
    url: http.url,
    metrics,
    metricsListener,
    notifications,
    close() {
      closing ??= stopParts(parts).finally(releaseDataDir);
      return closing;
    },
  };
}
