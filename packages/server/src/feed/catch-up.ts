import type { Logger } from 'pino';
import type { AirlockError } from '../errors.js';
import { readEventPage } from '../store/events.js';
import type { Store } from '../store/store.js';
import { FeedItem } from './feed-item.js';
import { prunedResume } from './pruned-position.js';

/**
 * A feed subscriber as the hub keeps it, and how one that is behind the head
 * reads the durable log on its own until it joins the live ones.
 */

/** A subscriber of the hub: where it stands, and where its events go. */
export interface Subscriber {
  readonly workspaceId: string;
  readonly runId: string | null;
  /**
   * The last sequence number this subscriber has seen (delivered or skipped as filtered out)
   * while it catches up; once live it follows the head and this stays where it joined.
   */
  cursor: number;
  /** True while it follows the workspace's head from memory; false while it reads the store. */
  live: boolean;
  busy: boolean;
  closed: boolean;
  deliver(items: readonly FeedItem[]): void;
  refuse(refusal: AirlockError, after: number): void;
  /** Resolves once what it was handed has been sent on, or it has gone (see SubscribeOptions). */
  drained?(): Promise<void>;
}

/** Every subscriber of one workspace, and the head they follow. */
export interface WorkspaceFeed {
  /** The highest sequence number dispatched from memory; null until read from the store. */
  head: number | null;
  readonly wholeWorkspace: Set<Subscriber>;
  readonly byRun: Map<string, Set<Subscriber>>;
  /** Subscribers reading the store until they reach the head. */
  readonly lagging: Set<Subscriber>;
  reading: boolean;
  readAgain: boolean;
}

/** Events read from the log at a time, at most. */
export const PAGE = 500;

/**
 * Bytes of event data read from the log at a time, at most (a single larger
 * event is read alone): many subscribers catching up at once each hold one
 * such page, well under the socket buffer a client may fill (MAX_BUFFERED).
 */
export const FEED_PAGE_BYTES = 1024 * 1024;

/** What a catch-up asks of the hub it belongs to. */
export interface CatchUpHost {
  store: Store;
  logger: Logger;
  /** Forgets a subscriber (a refused one). */
  remove(feed: WorkspaceFeed, subscriber: Subscriber): void;
  /** Hands a subscriber a batch of events, in order. */
  deliver(subscriber: Subscriber, items: readonly FeedItem[]): void;
}

/**
 * A subscriber behind the head reads the log on its own, then joins the
 * live ones; each page is checked against what retention pruned, so a
 * pass that runs during a long catch-up refuses it rather than skip.
 */
export async function catchUpFromLog(
  host: CatchUpHost,
  feed: WorkspaceFeed,
  subscriber: Subscriber,
): Promise<void> {
  if (subscriber.busy || subscriber.closed || subscriber.live) return;
  subscriber.busy = true;
  try {
    for (;;) {
      const head = feed.head;
      if (head === null || subscriber.closed) return;
      if (subscriber.cursor >= head) {
        if (subscriber.cursor === head) {
          subscriber.live = true;
          feed.lagging.delete(subscriber);
        }
        // Ahead of the head (a client resuming past what this process has dispatched):
        // it waits, and the next dispatch brings the head to it.
        return;
      }
      const { rows, more } = await readEventPage(host.store, {
        workspaceId: subscriber.workspaceId,
        runId: subscriber.runId,
        after: subscriber.cursor,
        through: head,
        limit: PAGE,
        maxBytes: FEED_PAGE_BYTES,
      });
      if (subscriber.closed) return;
      // Read after the page: events pruned before it was read moved the pruned position first.
      const refusal = await prunedResume(host.store, {
        workspaceId: subscriber.workspaceId,
        runId: subscriber.runId,
        after: subscriber.cursor,
      });
      if (subscriber.closed) return;
      if (refusal) {
        host.remove(feed, subscriber);
        subscriber.refuse(refusal, subscriber.cursor);
        return;
      }
      if (rows.length > 0) {
        host.deliver(
          subscriber,
          rows.map((row) => new FeedItem(row)),
        );
        // The next page is read once the client has read this one: a slow reader catches up at
        // its own pace instead of filling its socket's buffer until it is dropped, and the page
        // is all this subscriber holds. It waits before it joins the live ones too, whose events
        // are written at once and drop a client with too much still unsent.
        await subscriber.drained?.();
        if (subscriber.closed) return;
      }
      // A page with nothing after it read everything up to the head it was bounded by.
      subscriber.cursor = more ? rows[rows.length - 1]!.seq : head;
      // SQLite reads without giving the event loop a turn: between pages the socket writes
      // what it was handed (dropping a client too far behind) and other requests are served.
      if (more) await new Promise((resolve) => setImmediate(resolve));
    }
  } catch (error) {
    if (!subscriber.closed) host.logger.warn({ err: error }, 'feed read failed');
  } finally {
    subscriber.busy = false;
  }
}
