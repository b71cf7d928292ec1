import { Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * Every metric of the kernel, declared in this one place. To add one:
 * declare it in {@link createMetrics} (prefix `airlock_`, a unit suffix such
 * as `_seconds` or `_total`), add it to {@link KernelMetrics}, and record it
 * where the thing happens through `ctx.metrics?.name`, which costs nothing
 * when metrics are off. A value that is cheaper to read than to track (a
 * backlog, a queue length) is a gauge set from {@link KernelMetrics.onScrape}
 * (which names the gauges it sets, left out of a scrape when it fails).
 */
export interface KernelMetrics {
  readonly registry: Registry;
  /** Calls the approval stage decided, by outcome (granted, parked, denied, asked) and deciding layer. */
  readonly callsDecided: Counter<'outcome' | 'layer'>;
  /** Time the approval stage took to decide one call (rules and every policy layer). */
  readonly stageSeconds: Histogram<never>;
  /** Time from a park (or a question) to a person's decision, by verb (approve, deny, resolve). */
  readonly personDecisionSeconds: Histogram<'decision'>;
  /** Time from a request's arrival to its answer, by operation (hooks.*, runs.calls: hook and gateway round trips). */
  readonly requestSeconds: Histogram<'operation'>;
  /** Error answers by stable error code. */
  readonly errors: Counter<'code'>;
  /** Time one store COMMIT took (SQLite: the group commit's COMMIT; PostgreSQL: the final write with COMMIT). */
  readonly commitSeconds: Histogram<never>;
  /** Units of work one SQLite group commit carried. */
  readonly commitBatchUnits: Histogram<never>;
  /** Parked calls waiting for a person now, per workspace (read at scrape time). */
  readonly parksWaiting: Gauge<'workspace'>;
  /** Age of the oldest parked call per workspace (read at scrape time). */
  readonly parksOldestSeconds: Gauge<'workspace'>;
  /** Parked calls waiting longer than `over_seconds`, per workspace (read at scrape time). */
  readonly parksWaitingOver: Gauge<'workspace' | 'over_seconds'>;
  /** Open feed subscriptions (WebSocket and tRPC), and those still reading the log to catch up. */
  readonly feedSubscribers: Gauge<'state'>;
  /** Events the furthest-behind feed subscriber still has to receive. */
  readonly feedLagEvents: Gauge<never>;
  /** Notification deliveries still to be made (the outbox backlog, read at scrape time). */
  readonly notificationsPending: Gauge<never>;
  /** The SQLite WAL file's size in bytes, by its path (no series on PostgreSQL). */
  readonly sqliteWalBytes: Gauge<'file'>;
  /** Retention passes failed in a row now (0 while they succeed; read at scrape time). */
  readonly retentionFailingPasses: Gauge<never>;
  /**
   * Registers work that refreshes gauges before each scrape. When it fails
   * (the store does not answer) or takes longer than the refresh timeout,
   * the gauges it owns are left out of that scrape rather than shown stale,
   * and the scrape goes on; a refresh still under way is joined by the
   * next scrape, not started again.
   */
  onScrape(refresh: () => Promise<void> | void, owns: readonly Gauge<string>[]): void;
  /**
   * Refreshes the gauges (all at once, each within the refresh timeout) and
   * renders every metric in the Prometheus text format; each refresh that
   * failed or timed out is handed to `onRefreshError` (to log), and every
   * other metric is still rendered.
   */
  render(onRefreshError: (error: unknown) => void): Promise<string>;
  /** The content type of {@link render}'s text. */
  readonly contentType: string;
}

/** The ages, in seconds, `airlock_parks_waiting_over` reports a count for. */
export const PARK_AGE_THRESHOLDS_SECONDS = [60, 600, 3600, 86_400] as const;

const FAST_SECONDS = [
  0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1,
];
const REQUEST_SECONDS = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300,
];
const PERSON_SECONDS = [1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 7200, 21_600, 86_400];

/**
 * How long a scrape waits for the store to refresh its gauges. Past it, the
 * gauges of that refresh are left out of the scrape, well within a scraper's
 * own timeout (Prometheus's default is 10 s).
 */
export const SCRAPE_REFRESH_TIMEOUT_MS = 3000;

/** Work registered with {@link KernelMetrics.onScrape}, and its read still under way. */
interface Refresher {
  refresh: () => Promise<void> | void;
  owns: readonly Gauge<string>[];
  inFlight: Promise<void> | null;
}

/**
 * The refresh under way, or a new one: scrapes that come while the store is
 * slow share one read rather than each leaving another query waiting on it.
 */
function joinedRefresh(refresher: Refresher): Promise<void> {
  refresher.inFlight ??= Promise.resolve()
    .then(refresher.refresh)
    .finally(() => {
      refresher.inFlight = null;
    });
  return refresher.inFlight;
}

/**
 * Settles as `work` does, or rejects once `ms` have passed first.
 * @throws Error naming the wait when the deadline comes first.
 */
async function withinDeadline(work: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`the store did not answer within ${ms} ms of the scrape`)),
      ms,
    );
  });
  try {
    await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Creates a kernel's metrics in a registry of their own (never prom-client's
 * global one); `refreshTimeoutMs` bounds each scrape-time refresh
 * (default {@link SCRAPE_REFRESH_TIMEOUT_MS}).
 */
export function createMetrics(options: { refreshTimeoutMs?: number } = {}): KernelMetrics {
  const refreshTimeoutMs = options.refreshTimeoutMs ?? SCRAPE_REFRESH_TIMEOUT_MS;
  const registry = new Registry();
  const registers = [registry];
  const refreshers: Refresher[] = [];
  return {
    registry,
    contentType: registry.contentType,
    callsDecided: new Counter({
      name: 'airlock_calls_decided_total',
      help: 'Calls the approval stage decided, by outcome and deciding layer.',
      labelNames: ['outcome', 'layer'],
      registers,
    }),
    stageSeconds: new Histogram({
      name: 'airlock_approval_stage_seconds',
      help: 'Time the approval stage took to decide one call.',
      buckets: FAST_SECONDS,
      registers,
    }),
    personDecisionSeconds: new Histogram({
      name: 'airlock_park_to_decision_seconds',
      help: "Time from a park (or a question) to a person's decision.",
      labelNames: ['decision'],
      buckets: PERSON_SECONDS,
      registers,
    }),
    requestSeconds: new Histogram({
      name: 'airlock_request_seconds',
      help: 'Time from a request to its answer, by operation (hook and gateway round trips included).',
      labelNames: ['operation'],
      buckets: REQUEST_SECONDS,
      registers,
    }),
    errors: new Counter({
      name: 'airlock_errors_total',
      help: 'Error answers by stable error code.',
      labelNames: ['code'],
      registers,
    }),
    commitSeconds: new Histogram({
      name: 'airlock_store_commit_seconds',
      help: 'Time one store COMMIT took.',
      buckets: FAST_SECONDS,
      registers,
    }),
    commitBatchUnits: new Histogram({
      name: 'airlock_store_commit_batch_units',
      help: 'Units of work one SQLite group commit carried.',
      buckets: [1, 2, 4, 8, 16, 32, 64],
      registers,
    }),
    parksWaiting: new Gauge({
      name: 'airlock_parks_waiting',
      help: 'Parked calls waiting for a person now, per workspace.',
      labelNames: ['workspace'],
      registers,
    }),
    parksOldestSeconds: new Gauge({
      name: 'airlock_parks_oldest_age_seconds',
      help: 'Age of the oldest parked call waiting for a person, per workspace.',
      labelNames: ['workspace'],
      registers,
    }),
    parksWaitingOver: new Gauge({
      name: 'airlock_parks_waiting_over',
      help: 'Parked calls waiting for a person longer than over_seconds, per workspace.',
      labelNames: ['workspace', 'over_seconds'],
      registers,
    }),
    feedSubscribers: new Gauge({
      name: 'airlock_feed_subscribers',
      help: 'Open feed subscriptions: live ones, and catching_up ones still reading the log.',
      labelNames: ['state'],
      registers,
    }),
    feedLagEvents: new Gauge({
      name: 'airlock_feed_lag_events',
      help: 'Events the furthest-behind feed subscriber still catching up from the log has yet to receive.',
      registers,
    }),
    notificationsPending: new Gauge({
      name: 'airlock_notifications_pending',
      help: 'Notification deliveries not yet delivered nor dead-lettered (the outbox backlog).',
      registers,
    }),
    sqliteWalBytes: new Gauge({
      name: 'airlock_sqlite_wal_bytes',
      help: 'Size of the SQLite WAL file on disk; it grows only while checkpoints cannot finish.',
      labelNames: ['file'],
      registers,
    }),
    retentionFailingPasses: new Gauge({
      name: 'airlock_retention_failing_passes',
      help: 'Retention passes failed in a row now (an export directory it cannot write); 0 while they succeed.',
      registers,
    }),
    onScrape(refresh, owns) {
      refreshers.push({ refresh, owns, inFlight: null });
    },
    async render(onRefreshError) {
      // The counters and histograms recorded in memory matter most when the store is down.
      const unread = new Set<unknown>();
      await Promise.all(
        refreshers.map(async (refresher) => {
          try {
            await withinDeadline(joinedRefresh(refresher), refreshTimeoutMs);
          } catch (error) {
            for (const gauge of refresher.owns) unread.add(gauge);
            onRefreshError(error);
          }
        }),
      );
      if (unread.size === 0) return registry.metrics();
      // Left out, not cleared: a cleared gauge without labels would read 0, as if nothing waited.
      const shown = registry.getMetricsAsArray().filter((metric) => !unread.has(metric));
      const texts = await Promise.all(
        shown.map((metric) => registry.getSingleMetricAsString(metric.name)),
      );
      return `${texts.join('\n\n')}\n`;
    },
  };
}
