import { workspaceFeedPath } from '@airlock/core/wire';
import { errorFromBody, type Problem, unreadableAnswer } from './errors.js';
import { invalidInput } from './internal/deadline.js';
import { isEvent, isPosition } from './internal/frames.js';
import { LiveSocket, type SocketStatus, type WebSocketConstructor } from './internal/socket.js';
import { baseUrl } from './internal/transport.js';
import type { FeedEvent } from './views.js';

/** Options of a lifecycle feed subscription. */
export interface FeedOptions {
  /**
   * Resume after this sequence number (default 0: from the first event), or
   * `'latest'` to start at the workspace's head and skip its history.
   */
  after?: number | 'latest' | undefined;
  /** Ends the subscription when aborted. */
  signal?: AbortSignal | undefined;
  /**
   * Told when the socket connects, drops, reconnects, or pauses for a slow reader. What it
   * throws ends the subscription with that error (the loop's `next()` rejects with it).
   */
  onStatus?: ((status: SocketStatus) => void) | undefined;
  /**
   * How many unread events may wait before the socket pauses (default 2000);
   * it resumes after the last of them once the reader has caught up.
   */
  highWaterMark?: number | undefined;
  /**
   * How many bytes of unread events (their JSON text) may wait before the
   * socket pauses (default 16 MiB), whatever their count: a feed of large
   * events pauses long before `highWaterMark` of them fill the memory. At
   * least one event always waits, however large.
   */
  highWaterBytes?: number | undefined;
}

/** Where and how a feed connects (the client fills this in). */
export interface FeedTarget {
  url: string;
  token: string;
  workspaceId: string;
  runId: string | null;
  WebSocket?: WebSocketConstructor | undefined;
  /** How long a connection may take to open before it is tried again (the client's `timeoutMs`). */
  timeoutMs?: number | null | undefined;
  /** Checked before each reconnect: throws the typed error of a credential that stopped working. */
  check(): Promise<void>;
}

const HIGH_WATER = 2000;
const HIGH_WATER_BYTES = 16 * 1024 * 1024;

/**
 * Checks a feed's options, reporting every problem at once. The kernel refuses an `after`
 * that is not a whole number of zero or more at the socket's handshake, which a WebSocket
 * cannot read: the feed would reconnect for ever instead of failing.
 * @throws ValidationError `invalid_input` naming each option.
 */
function checkFeedOptions(options: FeedOptions): void {
  const problems: Problem[] = [];
  const { after, highWaterMark, highWaterBytes } = options;
  if (after !== undefined && after !== 'latest' && !isPosition(after)) {
    problems.push({
      code: 'invalid_input',
      pointer: '/after',
      message: `after must be a sequence number (a whole number, 0 or more) or 'latest'; got ${String(after)}`,
    });
  }
  for (const [name, value] of [
    ['highWaterMark', highWaterMark],
    ['highWaterBytes', highWaterBytes],
  ] as const) {
    if (value !== undefined && !(Number.isSafeInteger(value) && value >= 1)) {
      problems.push({
        code: 'invalid_input',
        pointer: `/${name}`,
        message: `${name} must be a whole number, 1 or more; got ${String(value)}`,
      });
    }
  }
  if (problems.length > 0) throw invalidInput(problems);
}

/**
 * A live lifecycle feed: an async iterator of events in sequence order that
 * reconnects by itself and resumes after the last event it received, so no
 * event is missed or repeated. Break out of the loop (or call `close()`) to end it.
 * @throws ValidationError `invalid_input`, before connecting, for an `after`, `highWaterMark`
 *   or `highWaterBytes` it cannot use.
 */
export class FeedSubscription implements AsyncIterableIterator<FeedEvent> {
  /** The last sequence number received; -1 until the head is known for `after: 'latest'`. */
  private cursor: number;
  private readonly highWater: number;
  private readonly lowWater: number;
  private readonly highWaterBytes: number;
  private readonly queue: FeedEvent[] = [];
  /** The length of each queued event's message, in the queue's order, and their sum. */
  private readonly queuedLengths: number[] = [];
  private queuedBytes = 0;
  /** The `next()` calls waiting for an event, oldest first: each gets its own, in order. */
  private readonly waiting: {
    resolve(result: IteratorResult<FeedEvent>): void;
    reject(error: Error): void;
  }[] = [];
  private failure: Error | null = null;
  private done = false;
  private paused = false;
  private readonly socket: LiveSocket;
  private readonly abort = () => this.close();

  constructor(
    target: FeedTarget,
    private readonly options: FeedOptions = {},
  ) {
    checkFeedOptions(options);
    this.cursor = options.after === 'latest' ? -1 : (options.after ?? 0);
    this.highWater = options.highWaterMark ?? HIGH_WATER;
    this.lowWater = Math.floor(this.highWater / 10);
    this.highWaterBytes = options.highWaterBytes ?? HIGH_WATER_BYTES;
    this.socket = new LiveSocket({
      url: () => feedUrl(target, this.cursor),
      WebSocket: target.WebSocket,
      check: target.check,
      handshakeMs: target.timeoutMs,
      onStatus: options.onStatus,
      onMessage: (message, length) => this.receive(message, length),
      onFatal: (error) => this.fail(error),
    });
    if (options.signal?.aborted) {
      this.done = true;
      return;
    }
    options.signal?.addEventListener('abort', this.abort, { once: true });
    this.socket.start();
  }

  /** The sequence number of the last event received (a feed resumes after it). */
  get lastSeq(): number {
    return Math.max(this.cursor, 0);
  }

  private receive(message: Record<string, unknown>, length: number): void {
    if (message.type === 'resync') {
      // The kernel pruned events after this position: stop here, loudly, rather than skip them.
      this.socket.close();
      this.fail(errorFromBody({ error: message }, 410));
      return;
    }
    if (message.type === 'ready' && this.cursor < 0) {
      if (!isPosition(message.after)) {
        this.unreadable('a ready frame whose after is not a sequence number');
        return;
      }
      this.cursor = message.after;
      return;
    }
    if (message.type !== 'event' || this.done) return;
    // Core's FeedMessageSchema declares what the kernel sends; the SDK checks what it reads of it.
    if (!isEvent(message.event)) {
      this.unreadable('an event frame without an event of a type and a sequence number');
      return;
    }
    const event = message.event;
    if (event.seq <= this.cursor) return;
    this.cursor = event.seq;
    const waiting = this.waiting.shift();
    if (waiting) {
      waiting.resolve({ value: event, done: false });
      return;
    }
    this.queue.push(event);
    this.queuedLengths.push(length);
    this.queuedBytes += length;
    if (
      (this.queue.length >= this.highWater || this.queuedBytes >= this.highWaterBytes) &&
      !this.paused
    ) {
      this.paused = true;
      this.socket.pause();
      this.options.onStatus?.('paused');
    }
  }

  /** Ends the subscription on a frame it cannot place: going on could skip or repeat events. */
  private unreadable(what: string): void {
    this.socket.close();
    this.fail(unreadableAnswer(`the feed sent ${what}; the subscription ended there`, null));
  }

  private fail(error: Error): void {
    if (this.done) return;
    this.failure = error;
    if (this.waiting.length > 0) {
      const waiting = this.waiting.splice(0);
      this.finish();
      for (const waiter of waiting) waiter.reject(error);
    }
  }

  /**
   * The next event; waits for one when none is queued. Calls made before the
   * earlier ones settled (`Promise.all`, a `next()` raced against a timer)
   * wait in turn: each gets the next event, none is left pending.
   */
  next(): Promise<IteratorResult<FeedEvent>> {
    const event = this.queue.shift();
    if (event) {
      this.queuedBytes -= this.queuedLengths.shift() ?? 0;
      if (
        this.paused &&
        this.queue.length <= this.lowWater &&
        this.queuedBytes <= this.highWaterBytes / 10
      ) {
        this.resume();
      }
      return Promise.resolve({ value: event, done: false });
    }
    if (this.failure) {
      const failure = this.failure;
      this.finish();
      return Promise.reject(failure);
    }
    if (this.done) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
    });
  }

  private resume(): void {
    this.paused = false;
    this.socket.resume();
  }

  /** Ends the subscription (what `break` in a `for await` loop does). */
  return(): Promise<IteratorResult<FeedEvent>> {
    this.close();
    return Promise.resolve({ value: undefined, done: true });
  }

  /** Closes the socket; every pending `next()` resolves as done. */
  close(): void {
    if (this.done) return;
    this.finish();
    for (const waiter of this.waiting.splice(0)) waiter.resolve({ value: undefined, done: true });
  }

  private finish(): void {
    this.done = true;
    this.queue.length = 0;
    this.queuedLengths.length = 0;
    this.queuedBytes = 0;
    this.socket.close();
    this.options.signal?.removeEventListener('abort', this.abort);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}

function feedUrl(target: FeedTarget, after: number): string {
  const url = new URL(`${baseUrl(target.url)}${workspaceFeedPath(target.workspaceId)}`);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  if (target.runId) url.searchParams.set('run_id', target.runId);
  url.searchParams.set('after', after < 0 ? 'latest' : String(after));
  // Browsers cannot set headers on a WebSocket; the kernel reads the token from the query.
  url.searchParams.set('access_token', target.token);
  return url.toString();
}
