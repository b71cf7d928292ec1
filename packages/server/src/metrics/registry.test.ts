import { describe, expect, it } from 'vitest';
import { createMetrics } from './registry.js';

describe('the gauges a scrape refreshes', () => {
  it('are left out when their refresh outlasts the timeout, and a refresh under way is joined', async () => {
    const metrics = createMetrics({ refreshTimeoutMs: 20 });
    let started = 0;
    let stalled = true;
    let finish: () => void = () => {};
    metrics.onScrape(() => {
      started += 1;
      if (!stalled) return metrics.notificationsPending.set(started);
      return new Promise<void>((settle) => {
        finish = settle;
      });
    }, [metrics.notificationsPending]);
    metrics.onScrape(() => metrics.feedLagEvents.set(3), [metrics.feedLagEvents]);
    const errors: unknown[] = [];
    for (let i = 0; i < 3; i += 1) {
      const text = await metrics.render((error) => errors.push(error));
      expect(text).toContain('airlock_feed_lag_events 3');
      expect(text).not.toContain('airlock_notifications_pending');
    }
    // One read waits on the store, however many scrapes came meanwhile.
    expect(started).toBe(1);
    expect(errors.map((error) => (error as Error).message)).toEqual(
      Array(3).fill('the store did not answer within 20 ms of the scrape'),
    );
    stalled = false;
    finish();
    await new Promise((settle) => setImmediate(settle));
    // The slow read finished: the next scrape starts a fresh one and shows what it read.
    const text = await metrics.render((error) => errors.push(error));
    expect(started).toBe(2);
    expect(text).toContain('airlock_notifications_pending 2');
    expect(errors).toHaveLength(3);
  });
});
