import type { Logger } from 'pino';
import type { AirlockError } from '../errors.js';
import type { EventView } from '../kernel/views.js';
import { readEventPage, workspaceHead } from '../store/events.js';
import type { RunEventTable } from '../store/schema.js';
import type { CommitListener, Store } from '../store/store.js';
import {
  type CatchUpHost,
  catchUpFromLog,
  FEED_PAGE_BYTES,
  PAGE,
  type Subscriber,
  type WorkspaceFeed,
} from './catch-up.js';
import { FeedItem } from './feed-item.js';

/** One feed subscriber's handle. */
export interface FeedSubscription {
  close(): void;
}

/** What a subscriber is and where its events go. */
export interface SubscribeOptions {
  workspaceId: string;
  /** Only this run's events; null or absent for the whole workspace. */
  runId?: string | null;
  /** Deliver the events after this sequence number. */
  after: number;
  /** Receives each batch of events in sequence order (one call per commit it matches). */
  deliver?: (items: readonly FeedItem[]) => void;
  /** Receives one event at a time; used when `deliver` is absent. */
  send?: (event: EventView) => void;
  /**
   * Told, once and last, when retention pruned events this subscriber was
   * about to read while it caught up (`feed_position_pruned`, naming where
   * it stood, `after`): it is removed, having received everything up to there.
   */
  refuse?: (refusal: AirlockError, after: number) => void;
  /**
   * Resolves once what this subscriber was handed has been sent on (its
   * socket drained) or it has gone: a catch-up awaits it after each page, so
   * a slow client paces its own reads of the log. Absent: never waits.
   */
  drained?: () => Promise<void>;
  /** The kernel's own listener (a model request's run end, run-ends.ts): left out of {@link FeedHub.stats}. */
  internal?: boolean;
}

/**
 * Fans committed events out to feed subscribers. A workspace's events are
 * matched against its subscribers in memory and serialized once however many
 * receive them: this process's commits arrive from the store as they commit;
 * other processes' commits (PostgreSQL NOTIFY on one LISTEN connection) and a
 * slow safety poll read the log once per workspace, never once per subscriber.
 * The process listens only while it has subscribers (and for a short grace
 * after the last one leaves), so kernel processes that serve no feed are not
 * woken by every commit of every other process.
 * Only a subscriber that is behind the head (resuming from a sequence number)
 * reads the durable log on its own, until it catches up and joins the others.
 */
export class FeedHub {
  private readonly feeds = new Map<string, WorkspaceFeed>();
  /** Subscribers the kernel itself holds, not counted as open feeds. */
  private readonly internal = new WeakSet<Subscriber>();
  private listener: CommitListener | undefined;
  /** Settles once the listener is on (or has failed to switch on, which the safety poll covers). */
  private listening: Promise<void> = Promise.resolve();
  private quietTimer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  private poll: NodeJS.Timeout | undefined;

  /** What a catch-up asks of the hub. */
  private readonly catchUpHost: CatchUpHost;
  /** Told when a dispatched event ended credentials, whichever process committed it. */
  private readonly credentialEndListeners = new Set<() => void>();

  constructor(
    private readonly store: Store,
    private readonly logger: Logger,
    /** How long the listener stays on after the last subscriber leaves (churn guard). */
    private readonly quietAfterMs = 5000,
    /** How often the hub reads forward on its own, in case a commit notice was missed. */
    private readonly safetyPollMs = 1000,
  ) {
    this.catchUpHost = {
      store,
      logger,
      remove: (feed, subscriber) => this.remove(feed, subscriber),
      deliver: (subscriber, items) => this.deliver(subscriber, items),
    };
  }

  /** Starts following this process's commits, and opens the listener (off until a subscriber comes). */
  async start(): Promise<void> {
    this.unsubscribe = this.store.onCommitted((events) => this.onCommitted(events));
    this.listener = await this.store.listen((workspaceId, lastSeq) =>
      this.onNotified(workspaceId, lastSeq),
    );
    this.poll = setInterval(() => {
      for (const [workspaceId, feed] of this.feeds) {
        this.readForward(workspaceId);
        // A catch-up whose read failed goes on here: a quiet workspace brings no commit to wake it.
        for (const subscriber of feed.lagging) void this.catchUp(feed, subscriber);
      }
    }, this.safetyPollMs);
    this.poll.unref();
  }

  /**
   * Calls `listener` whenever a credential revocation or an application's
   * removal reaches a workspace this process has feeds in, committed by this
   * kernel, another kernel sharing the database, or the operator's CLI: the
   * credentials those feeds hold are asked about again at once, not at the
   * next recheck. Returns the function that stops telling it.
   */
  onCredentialsEnded(listener: () => void): () => void {
    this.credentialEndListeners.add(listener);
    return () => this.credentialEndListeners.delete(listener);
  }

  /** Subscribes to a workspace's events (optionally one run's) after a sequence number. */
  subscribe(options: SubscribeOptions): FeedSubscription {
    const send = options.send;
    const deliver =
      options.deliver ??
      ((items: readonly FeedItem[]) => {
        for (const item of items) send?.(item.view);
      });
    const subscriber: Subscriber = {
      workspaceId: options.workspaceId,
      runId: options.runId ?? null,
      cursor: options.after,
      live: false,
      busy: false,
      closed: false,
      deliver,
      refuse: options.refuse ?? (() => {}),
      drained: options.drained,
    };
    if (options.internal) this.internal.add(subscriber);
    const feed = this.feedOf(subscriber.workspaceId);
    if (subscriber.runId === null) feed.wholeWorkspace.add(subscriber);
    else {
      let runSubscribers = feed.byRun.get(subscriber.runId);
      if (!runSubscribers) {
        runSubscribers = new Set();
        feed.byRun.set(subscriber.runId, runSubscribers);
      }
      runSubscribers.add(subscriber);
    }
    feed.lagging.add(subscriber);
    if (feed.head === null) this.readForward(subscriber.workspaceId);
    else void this.catchUp(feed, subscriber);
    return { close: () => this.remove(feed, subscriber) };
  }

  private feedOf(workspaceId: string): WorkspaceFeed {
    let feed = this.feeds.get(workspaceId);
    if (!feed) {
      feed = {
        head: null,
        wholeWorkspace: new Set(),
        byRun: new Map(),
        lagging: new Set(),
        reading: false,
        readAgain: false,
      };
      this.feeds.set(workspaceId, feed);
      if (this.feeds.size === 1) this.listenFor(true);
    }
    return feed;
  }

  /** Switches the listener on now, or off once nobody has subscribed for `quietAfterMs`. */
  private listenFor(subscribers: boolean): void {
    clearTimeout(this.quietTimer);
    this.quietTimer = undefined;
    if (subscribers) {
      this.listening = this.switchListener(true);
      return;
    }
    this.quietTimer = setTimeout(() => {
      this.quietTimer = undefined;
      if (this.feeds.size === 0) void this.switchListener(false);
    }, this.quietAfterMs);
    this.quietTimer.unref();
  }

  private async switchListener(on: boolean): Promise<void> {
    try {
      await this.listener?.want(on);
    } catch (error) {
      this.logger.warn({ err: error }, on ? 'feed listen failed' : 'feed unlisten failed');
    }
  }

  private remove(feed: WorkspaceFeed, subscriber: Subscriber): void {
    // A refused subscriber was removed already: its later close must not drop a newer feed.
    if (subscriber.closed) return;
    subscriber.closed = true;
    feed.lagging.delete(subscriber);
    if (subscriber.runId === null) feed.wholeWorkspace.delete(subscriber);
    else {
      const runSubscribers = feed.byRun.get(subscriber.runId);
      runSubscribers?.delete(subscriber);
      if (runSubscribers?.size === 0) feed.byRun.delete(subscriber.runId);
    }
    if (feed.wholeWorkspace.size === 0 && feed.byRun.size === 0) {
      this.feeds.delete(subscriber.workspaceId);
      if (this.feeds.size === 0) this.listenFor(false);
    }
  }

  /**
   * A commit somewhere (PostgreSQL's NOTIFY, this process's own commits
   * included): read the log forward unless the head is already past it.
   */
  private onNotified(workspaceId: string, lastSeq: number | null): void {
    const head = this.feeds.get(workspaceId)?.head ?? null;
    if (lastSeq !== null && head !== null && lastSeq <= head) return;
    this.readForward(workspaceId);
  }

  /** This process's commits: contiguous with the head, they are dispatched from memory. */
  private onCommitted(events: readonly RunEventTable[]): void {
    let start = 0;
    while (start < events.length) {
      const workspaceId = events[start]!.workspace_id;
      let end = start + 1;
      while (end < events.length && events[end]!.workspace_id === workspaceId) end += 1;
      const feed = this.feeds.get(workspaceId);
      if (feed) this.offer(feed, workspaceId, events.slice(start, end));
      start = end;
    }
  }

  private offer(feed: WorkspaceFeed, workspaceId: string, rows: readonly RunEventTable[]): void {
    if (feed.head === null) {
      this.readForward(workspaceId);
      return;
    }
    const fresh = rows.filter((row) => row.seq > feed.head!);
    if (fresh.length === 0) return;
    if (fresh[0]!.seq !== feed.head + 1) {
      // Another commit sits between the head and these (another process, or one not yet
      // reported): read forward from the log, which holds both in order.
      this.readForward(workspaceId);
      return;
    }
    this.dispatch(feed, fresh);
  }

  /** Hands events (contiguous after the head) to every live subscriber they match, once each. */
  private dispatch(feed: WorkspaceFeed, rows: readonly RunEventTable[]): void {
    const batches = new Map<Subscriber, FeedItem[]>();
    const add = (subscriber: Subscriber, item: FeedItem) => {
      if (!subscriber.live) return;
      const batch = batches.get(subscriber);
      if (batch) batch.push(item);
      else batches.set(subscriber, [item]);
    };
    for (const row of rows) {
      const item = new FeedItem(row);
      for (const subscriber of feed.wholeWorkspace) add(subscriber, item);
      const runSubscribers = feed.byRun.get(row.run_id);
      if (runSubscribers) for (const subscriber of runSubscribers) add(subscriber, item);
    }
    feed.head = rows[rows.length - 1]!.seq;
    for (const [subscriber, batch] of batches) this.deliver(subscriber, batch);
    if (this.credentialEndListeners.size > 0 && rows.some(endsCredentials)) {
      for (const listener of this.credentialEndListeners) listener();
    }
    for (const subscriber of feed.lagging) void this.catchUp(feed, subscriber);
  }

  private deliver(subscriber: Subscriber, items: readonly FeedItem[]): void {
    if (subscriber.closed) return;
    try {
      subscriber.deliver(items);
    } catch (error) {
      this.logger.warn({ err: error }, 'feed delivery failed');
    }
  }

  /**
   * Reads a workspace's log forward from its head once for all its live
   * subscribers (or, the first time, learns the head).
   */
  private readForward(workspaceId: string): void {
    const feed = this.feeds.get(workspaceId);
    if (!feed) return;
    if (feed.reading) {
      feed.readAgain = true;
      return;
    }
    feed.reading = true;
    void (async () => {
      try {
        do {
          feed.readAgain = false;
          if (feed.head === null) {
            // A commit after the listener is on is heard; one before it is under the head read here.
            await this.listening;
            // Every sequence number up to the committed counter is committed: allocation
            // holds the workspace row until its transaction ends.
            feed.head = await workspaceHead(this.store, workspaceId);
            for (const subscriber of feed.lagging) void this.catchUp(feed, subscriber);
            continue;
          }
          const { rows, more } = await readEventPage(this.store, {
            workspaceId,
            after: feed.head,
            limit: PAGE,
            maxBytes: FEED_PAGE_BYTES,
          });
          const fresh = rows.filter((row) => row.seq > feed.head!);
          if (fresh.length > 0) this.dispatch(feed, fresh);
          if (more) feed.readAgain = true;
        } while (feed.readAgain && this.feeds.get(workspaceId) === feed);
      } catch (error) {
        this.logger.warn({ err: error }, 'feed read failed');
      } finally {
        feed.reading = false;
      }
    })();
  }

  /** Reads a subscriber behind the head up to it from the log (see catch-up.ts). */
  private catchUp(feed: WorkspaceFeed, subscriber: Subscriber): Promise<void> {
    return catchUpFromLog(this.catchUpHost, feed, subscriber);
  }

  /**
   * Counts the subscribers, those still reading the log to catch up, and how
   * many events the furthest-behind of those has yet to receive (for the
   * metrics); the kernel's own listeners are not feeds and are left out.
   */
  stats(): { live: number; catchingUp: number; maxLagEvents: number } {
    let live = 0;
    let catchingUp = 0;
    let maxLagEvents = 0;
    for (const feed of this.feeds.values()) {
      const measure = (subscriber: Subscriber) => {
        if (this.internal.has(subscriber)) return;
        // A live subscriber is handed every event as it is dispatched: nothing waits here for it.
        if (subscriber.live) live += 1;
        else {
          catchingUp += 1;
          if (feed.head !== null)
            maxLagEvents = Math.max(maxLagEvents, feed.head - subscriber.cursor);
        }
      };
      feed.wholeWorkspace.forEach(measure);
      for (const runSubscribers of feed.byRun.values()) runSubscribers.forEach(measure);
    }
    return { live, catchingUp, maxLagEvents };
  }

  /** Stops listening and drops every subscriber. */
  async stop(): Promise<void> {
    if (this.poll) clearInterval(this.poll);
    this.unsubscribe?.();
    for (const feed of this.feeds.values()) {
      for (const subscriber of feed.wholeWorkspace) subscriber.closed = true;
      for (const runSubscribers of feed.byRun.values()) {
        for (const subscriber of runSubscribers) subscriber.closed = true;
      }
    }
    this.feeds.clear();
    clearTimeout(this.quietTimer);
    await this.listener?.close();
  }
}

/** The policy changes after which a credential may no longer work. */
const CREDENTIAL_ENDING_CHANGES: ReadonlySet<unknown> = new Set([
  'credential_revoked',
  'agent_application_removed',
]);

/** Whether a stored event records a credential revoked or an application removed. */
function endsCredentials(row: RunEventTable): boolean {
  if (row.type !== 'policy.changed') return false;
  try {
    return CREDENTIAL_ENDING_CHANGES.has((JSON.parse(row.data) as { change?: unknown }).change);
  } catch {
    return false;
  }
}
