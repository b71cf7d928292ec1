import { AirlockError } from '../errors.js';
import type { FeedItem } from '../feed/feed-item.js';
import { MAX_BUFFERED } from '../feed/frame-writer.js';

/** A stored event's size on the wire, near enough: its data's text and the few fields around it. */
const sizeOf = (item: FeedItem) => item.row.data.length + 200;

/**
 * The events a tRPC feed subscription has been handed and not yet sent.
 *
 * The hub hands events over as they commit, whether or not the client reads;
 * tRPC stops pulling from the subscription when the client's connection is
 * not read. So the backlog is bounded like a WebSocket feed's buffer: once
 * more than `maxBytes` wait behind the oldest event it holds, it drops what
 * it holds and the subscription ends with `unavailable`, and the client
 * resumes from its last event id. The oldest event is not counted, so one
 * event larger than the bound is still handed over (a client resuming before
 * it would otherwise be refused at it for ever). One abort listener serves
 * the subscription's whole life.
 */
export class FeedBacklog {
  private readonly items: FeedItem[] = [];
  private bytes = 0;
  private wake: (() => void) | null = null;
  private overflowed = false;
  private failure: AirlockError | null = null;
  /** Catch-ups waiting for every event handed over to be sent on (see {@link drained}). */
  private emptied: (() => void)[] = [];
  private ended = false;

  constructor(private readonly maxBytes = MAX_BUFFERED) {}

  /** Events the hub delivers, in sequence order. */
  push(items: readonly FeedItem[]): void {
    if (this.overflowed) return;
    for (const item of items) {
      this.items.push(item);
      this.bytes += sizeOf(item);
    }
    const oldest = this.items[0];
    if (oldest && this.bytes - sizeOf(oldest) > this.maxBytes) {
      this.overflowed = true;
      this.items.length = 0;
      this.bytes = 0;
      this.#wakeDrained();
    }
    this.wake?.();
  }

  /**
   * Ends the subscription with `error` once the events handed over before it
   * are sent (a catch-up refused because retention pruned what it would read).
   */
  fail(error: AirlockError): void {
    this.failure ??= error;
    this.wake?.();
    this.#wakeDrained();
  }

  /**
   * Resolves once every event handed over has been taken to be sent (tRPC
   * takes the next only once it wrote the last to a client that reads), or
   * the subscription ended: the hub's catch-up awaits it between pages, so a
   * slow client catches up at its own pace instead of passing the bound.
   */
  drained(): Promise<void> {
    if (this.items.length === 0 || this.overflowed || this.failure || this.ended) {
      return Promise.resolve();
    }
    return new Promise((resolve) => this.emptied.push(resolve));
  }

  #wakeDrained(): void {
    for (const resolve of this.emptied.splice(0)) resolve();
  }

  /** How many events wait to be sent. */
  get size(): number {
    return this.items.length;
  }

  /**
   * Yields the events as they arrive until `signal` aborts; throws
   * `unavailable` once the backlog passed its bound.
   */
  async *drain(signal: AbortSignal | undefined): AsyncGenerator<FeedItem> {
    const onAbort = () => this.wake?.();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      while (!signal?.aborted) {
        for (let item = this.items.shift(); item; item = this.items.shift()) {
          this.bytes -= sizeOf(item);
          if (this.items.length === 0) this.#wakeDrained();
          yield item;
        }
        if (this.failure) throw this.failure;
        if (this.overflowed) {
          throw new AirlockError(
            'unavailable',
            'the feed fell too far behind; reconnect with the last event id',
          );
        }
        await new Promise<void>((resolve) => {
          this.wake = resolve;
          // Something happened while an event was being yielded: nothing else would wake this wait.
          if (signal?.aborted || this.overflowed || this.failure || this.items.length > 0) {
            resolve();
          }
        });
        this.wake = null;
      }
    } finally {
      signal?.removeEventListener('abort', onAbort);
      this.ended = true;
      this.#wakeDrained();
    }
  }
}
