import { createClient, type FeedSubscription } from '@airlock/sdk';
import type { KernelAddress } from '../kernel-api.js';

/**
 * A gateway session's waits on its rows, hastened by its run's feed. The feed
 * is open only while some call waits on a row this process does not run (a
 * park, or another executor's run): a granted call run here needs no event.
 * Waiting calls are known by `run/key` (a session that moved to a new run
 * reuses keys).
 */
export class RunFeedWatch {
  private feed: FeedSubscription | null = null;
  /** The run the feed follows (a session that moved to a new run follows that one). */
  private feedRun: string | null = null;
  /** How many calls wait on the feed now. */
  private watching = 0;
  private feedOpens = 0;
  private readonly wakers = new Map<string, () => void>();

  constructor(private readonly address: KernelAddress) {}

  /** How many times the feed said ready: a row read before the latest may have missed an event. */
  get opens(): number {
    return this.feedOpens;
  }

  /**
   * Opens the run's feed for one more waiting call (unless open). The
   * function it returns ends that call's wait; the last one to end closes
   * the feed.
   */
  watch(runId: string): () => void {
    this.watching += 1;
    if (this.feedRun !== runId) this.follow(runId);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.watching -= 1;
      if (this.watching > 0) return;
      this.close();
    };
  }

  /** Wakes the call waiting on `run/key`, if one is. */
  wake(key: string): void {
    this.wakers.get(key)?.();
  }

  /** Sleeps until the row's next poll (`ms`), a wake of its `run/key`, or the caller's abort. */
  async pause(key: string, ms: number, signal: AbortSignal): Promise<void> {
    let wake: () => void = () => {};
    const woken = new Promise<void>((resolve) => {
      wake = resolve;
    });
    const timer = setTimeout(wake, ms);
    this.wakers.set(key, wake);
    signal.addEventListener('abort', wake, { once: true });
    await woken;
    clearTimeout(timer);
    this.wakers.delete(key);
    signal.removeEventListener('abort', wake);
  }

  /** Closes the feed now (a call that waits later opens it again). */
  close(): void {
    this.feed?.close();
    this.feed = null;
    this.feedRun = null;
  }

  /**
   * Follows the run's feed from its head: an event on a waiting call's row wakes
   * it before its next poll. Each time the feed says ready, every waiting call
   * is woken to read its row again, which covers what changed before the feed
   * listened.
   */
  private follow(runId: string): void {
    this.feed?.close();
    const { url, token, workspaceId = '', timeoutMs } = this.address;
    const feed = createClient({ url, token, timeoutMs })
      .workspace(workspaceId)
      .runs.run(runId)
      .feed({
        after: 'latest',
        onStatus: (status) => {
          if (status !== 'open') return;
          this.feedOpens += 1;
          for (const wake of [...this.wakers.values()]) wake();
        },
      });
    this.feed = feed;
    this.feedRun = runId;
    void (async () => {
      try {
        for await (const event of feed) {
          // A claim changes nothing a waiting call answers from: its row settles later.
          if (event.task_key && event.type !== 'task.claimed') {
            this.wake(`${event.run_id}/${event.task_key}`);
          }
        }
      } catch {
        // The feed only hastens the polls; without it the calls are still read.
      }
    })();
  }
}
