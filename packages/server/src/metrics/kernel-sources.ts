import type { FeedHub } from '../feed/hub.js';
import type { RetentionPruner } from '../kernel/retention/retention.js';
import { countPendingDeliveries } from '../store/notifications.js';
import { parksWaitingByWorkspace } from '../store/parks-waiting.js';
import type { Store } from '../store/store.js';
import { type KernelMetrics, PARK_AGE_THRESHOLDS_SECONDS } from './registry.js';

/**
 * Connects the metrics to what they read outside the hot path: the store's
 * COMMITs as they happen, and at each scrape the parked rows (one grouped
 * query on the parked-rows index), the notification outbox's backlog (a
 * count on its index of due deliveries), the feed's subscribers, the
 * retention passes failed in a row and, on SQLite, the WAL file's size.
 */
export function connectMetrics(
  metrics: KernelMetrics,
  sources: { store: Store; hub: FeedHub; pruner?: RetentionPruner | undefined },
): void {
  const { store, hub, pruner } = sources;
  const commitSeconds = metrics.commitSeconds;
  const batchUnits = metrics.commitBatchUnits;
  store.observeCommits((seconds, units) => {
    commitSeconds.observe(seconds);
    // Only a backend that shares COMMITs among units of work (SQLite's group commit) has batches.
    if (units !== null) batchUnits.observe(units);
  });
  const parkGauges = [metrics.parksWaiting, metrics.parksOldestSeconds, metrics.parksWaitingOver];
  // Each read is a refresh of its own: one the store cannot answer leaves the others in the scrape.
  metrics.onScrape(async () => {
    const now = store.now();
    const parks = await parksWaitingByWorkspace(store, {
      now,
      agesMs: PARK_AGE_THRESHOLDS_SECONDS.map((seconds) => seconds * 1000),
    });
    // A workspace whose parks were all decided drops its series instead of keeping a stale one.
    for (const gauge of parkGauges) gauge.reset();
    for (const workspace of parks) {
      const labels = { workspace: workspace.workspaceId };
      metrics.parksWaiting.set(labels, workspace.waiting);
      metrics.parksOldestSeconds.set(labels, Math.max(0, (now - workspace.oldestAt) / 1000));
      PARK_AGE_THRESHOLDS_SECONDS.forEach((seconds, i) => {
        metrics.parksWaitingOver.set(
          { ...labels, over_seconds: String(seconds) },
          workspace.olderThan[i] ?? 0,
        );
      });
    }
  }, parkGauges);
  metrics.onScrape(async () => {
    metrics.notificationsPending.set(await countPendingDeliveries(store));
  }, [metrics.notificationsPending]);
  metrics.onScrape(() => {
    const wal = store.walFile();
    if (wal !== null) metrics.sqliteWalBytes.set({ file: wal.path }, wal.bytes);
  }, [metrics.sqliteWalBytes]);
  metrics.onScrape(() => {
    const feed = hub.stats();
    metrics.feedSubscribers.set({ state: 'live' }, feed.live);
    metrics.feedSubscribers.set({ state: 'catching_up' }, feed.catchingUp);
    metrics.feedLagEvents.set(feed.maxLagEvents);
  }, [metrics.feedSubscribers, metrics.feedLagEvents]);
  metrics.onScrape(() => {
    metrics.retentionFailingPasses.set(pruner?.failure?.passes ?? 0);
  }, [metrics.retentionFailingPasses]);
}
