import { DEFAULT_TIMEOUT_MS } from './deadline.js';
import { tlsFailure } from './tls-failure.js';

/** The part of the WHATWG WebSocket the SDK uses; the browser's, Node 22's and `ws` all fit. */
export interface WebSocketLike {
  readonly readyState: number;
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code: number; reason: string }) => void) | null;
  onerror: ((event: unknown) => void) | null;
  send(data: string): void;
  close(code?: number, reason?: string): void;
}

/** A WebSocket class: `new WebSocket(url)`. */
export type WebSocketConstructor = new (url: string) => WebSocketLike;

/**
 * The WebSocket class to use: the injected one, else the global one (browsers,
 * Node 22), else the `ws` package loaded on demand (Node 20 has no global).
 * @throws Error when none is available.
 */
export async function resolveWebSocket(
  injected?: WebSocketConstructor,
): Promise<WebSocketConstructor> {
  if (injected) return injected;
  const global = (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
  if (global) return global;
  // A computed specifier keeps bundlers from pulling `ws` into a browser build.
  const specifier = 'ws';
  try {
    const loaded = (await import(/* @vite-ignore */ specifier)) as {
      WebSocket?: WebSocketConstructor;
      default?: WebSocketConstructor;
    };
    const found = loaded.WebSocket ?? loaded.default;
    if (found) return found;
  } catch {
    // fall through to the explanation below
  }
  throw new Error(
    'no WebSocket implementation: pass `WebSocket` in the options, or install the `ws` package',
  );
}

/** Where a live socket stands. */
export type SocketStatus = 'connecting' | 'open' | 'reconnecting' | 'paused' | 'closed';

/** How a {@link LiveSocket} connects and what it does with messages. */
export interface LiveSocketOptions {
  /** The socket URL for a connection resuming after a sequence number. */
  url(): string;
  WebSocket?: WebSocketConstructor | undefined;
  /** Each message as JSON, and the length of its text (a reader bounding what it holds). */
  onMessage(message: Record<string, unknown>, length: number): void;
  /** Told each change of status, once: an outage of several failed tries is one `reconnecting`. */
  onStatus?(status: SocketStatus): void;
  /**
   * Checked before each reconnect; a throw ends the socket with that error
   * (a revoked token, say) instead of retrying forever.
   */
  check?(): Promise<void>;
  /** Called once when the socket gives up for good. */
  onFatal(error: Error): void;
  /** Whether a failure of `check` is worth trying again (default {@link isPassingFailure}). */
  isPassing?(error: unknown): boolean;
  /** Delay before the first reconnect; doubles up to 5 s. */
  retryMs?: number | undefined;
  /**
   * How long a connection may take to say `ready` (default 30 s) before it is
   * dropped and tried again: a kernel that accepts and never answers would
   * otherwise hold the socket connecting for ever. null waits as long as it takes.
   */
  handshakeMs?: number | null | undefined;
}

const MAX_RETRY_MS = 5000;
const PING_MS = 15_000;
const SILENCE_MS = 40_000;
/**
 * How long a dropped socket may wait for the server to answer its close. `ws` waits 30 s, its
 * timer and socket holding the event loop: a process closing its feeds against a hung kernel
 * would live on that long.
 */
const CLOSE_ANSWER_MS = 2000;
/** The `readyState` of a closed WebSocket. */
const CLOSED = 3;

/**
 * A WebSocket that reconnects with backoff until closed. The URL is asked for
 * afresh on every connect, so a caller resumes from its last sequence number.
 */
export class LiveSocket {
  private socket: WebSocketLike | null = null;
  private closed = false;
  private paused = false;
  private attempt = 0;
  private told: SocketStatus | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private handshake: ReturnType<typeof setTimeout> | undefined;
  private ping: ReturnType<typeof setInterval> | undefined;
  private lastHeard = 0;

  constructor(private readonly options: LiveSocketOptions) {}

  /** Connects (once); later drops reconnect by themselves. */
  start(): void {
    void this.connect();
  }

  /** Closes the socket now and stops reconnecting. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.timer);
    this.drop('done');
    this.status('closed');
  }

  /** Drops the current connection and reconnects at once. */
  restart(): void {
    if (this.closed) return;
    this.drop();
    clearTimeout(this.timer);
    void this.connect();
  }

  /** Drops the connection until {@link resume} (a reader that fell behind). */
  pause(): void {
    if (this.closed || this.paused) return;
    this.paused = true;
    clearTimeout(this.timer);
    this.drop();
  }

  /** Reconnects after a {@link pause}; the URL resumes where the reader is. */
  resume(): void {
    if (this.closed || !this.paused) return;
    this.paused = false;
    void this.connect();
  }

  /** Closes the current connection, if any, without its handlers firing (`reason` goes to the kernel). */
  private drop(reason = 'reconnecting'): void {
    clearInterval(this.ping);
    clearTimeout(this.handshake);
    const socket = this.socket;
    this.socket = null;
    if (socket) {
      socket.onclose = null;
      socket.onerror = () => {};
      socket.onmessage = null;
      socket.close(1000, reason);
      letGo(socket);
    }
  }

  private async connect(): Promise<void> {
    if (this.closed || this.paused) return;
    this.status(this.attempt === 0 ? 'connecting' : 'reconnecting');
    let Socket: WebSocketConstructor;
    try {
      if (this.attempt > 0 && this.options.check) await this.options.check();
      Socket = await resolveWebSocket(this.options.WebSocket);
    } catch (error) {
      if ((this.options.isPassing ?? isPassingFailure)(error)) {
        this.scheduleReconnect();
        return;
      }
      this.fail(error as Error);
      return;
    }
    if (this.closed || this.paused) return;
    let socket: WebSocketLike;
    try {
      socket = new Socket(this.options.url());
    } catch (error) {
      // A browser refuses a `ws:` URL from an `https:` page at once, and would again: the
      // socket fails with why, rather than as a rejection nobody awaits.
      this.fail(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    this.socket = socket;
    this.awaitHandshake(socket);
    socket.onmessage = (event) => {
      this.lastHeard = Date.now();
      try {
        this.receive(event.data);
      } catch (error) {
        // A message its reader could not take ends the socket with the error, never the process.
        this.giveUp(error);
      }
    };
    socket.onopen = () => {
      this.lastHeard = Date.now();
      clearInterval(this.ping);
      this.ping = setInterval(() => this.keepAlive(socket), PING_MS);
      (this.ping as { unref?: () => void }).unref?.();
    };
    socket.onerror = () => {};
    socket.onclose = () => {
      if (this.socket !== socket) return;
      this.socket = null;
      clearInterval(this.ping);
      clearTimeout(this.handshake);
      this.scheduleReconnect();
    };
  }

  /** Reads one message and hands it on; a frame that is not a JSON object is let go. */
  private receive(data: unknown): void {
    let message: unknown;
    const text = String(data);
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    if (message === null || typeof message !== 'object') return;
    const typed = message as Record<string, unknown>;
    if (typed.type === 'ready') {
      clearTimeout(this.handshake);
      this.attempt = 0;
      this.status('open');
      if (this.closed) return;
    }
    if (typed.type !== 'pong') this.options.onMessage(typed, text.length);
  }

  /**
   * Tells the status listener; what it throws ends the socket with that error, as a message
   * listener's throw does, instead of escaping from a timer or a socket event. Its throw at
   * `closed` goes nowhere: the socket is closed either way.
   */
  private status(status: SocketStatus): void {
    if (status === this.told) return;
    this.told = status;
    try {
      this.options.onStatus?.(status);
    } catch (error) {
      if (status !== 'closed') this.giveUp(error);
    }
  }

  /** Fails the socket with what a listener threw; a throw from the failure's own listener goes no further. */
  private giveUp(thrown: unknown): void {
    try {
      this.fail(thrown instanceof Error ? thrown : new Error(String(thrown)));
    } catch {
      // Nobody is left to tell: the socket is closed either way.
    }
  }

  /** Drops a connection that has not said `ready` in time, and tries again with backoff. */
  private awaitHandshake(socket: WebSocketLike): void {
    const handshakeMs =
      this.options.handshakeMs === undefined ? DEFAULT_TIMEOUT_MS : this.options.handshakeMs;
    clearTimeout(this.handshake);
    if (handshakeMs === null) return;
    this.handshake = setTimeout(() => {
      if (this.socket !== socket) return;
      this.drop();
      this.scheduleReconnect();
    }, handshakeMs);
  }

  private keepAlive(socket: WebSocketLike): void {
    if (this.socket !== socket) return;
    if (Date.now() - this.lastHeard > SILENCE_MS) {
      this.restart();
      return;
    }
    try {
      socket.send('ping');
    } catch {
      this.restart();
    }
  }

  private scheduleReconnect(): void {
    if (this.closed || this.paused) return;
    const base = this.options.retryMs ?? 100;
    const delay = Math.min(MAX_RETRY_MS, base * 2 ** this.attempt) * (0.75 + Math.random() / 2);
    this.attempt += 1;
    this.status('reconnecting');
    if (this.closed) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.connect(), delay);
  }

  private fail(error: Error): void {
    this.close();
    this.options.onFatal(error);
  }
}

/** Ends a closing socket at once if its server has not answered the close in time (`ws` only). */
function letGo(socket: WebSocketLike): void {
  const { terminate } = socket as { terminate?: unknown };
  if (typeof terminate !== 'function' || socket.readyState === CLOSED) return;
  const timer = setTimeout(() => {
    if (socket.readyState !== CLOSED) terminate.call(socket);
  }, CLOSE_ANSWER_MS);
  (timer as { unref?: () => void }).unref?.();
}

/**
 * Failures that pass: no answer (in time), a kernel or store that is unavailable, a credential
 * past its rate limit (the socket backs off and tries again; a revoked one is not among them).
 */
const PASSING_CODES = new Set([
  'connection_failed',
  'deadline_exceeded',
  'unavailable',
  'store_unavailable',
  'rate_limited',
  'internal',
]);

/** A failure worth retrying (see {@link PASSING_CODES}): a socket reconnects, a watcher reads again. */
export function isPassingFailure(error: unknown): boolean {
  const { code, status } = (error ?? {}) as { code?: unknown; status?: unknown };
  // A success the SDK could not read comes from a server that is up but is not the kernel (a web
  // app at that address): asking again gets the same answer.
  if (code === 'internal' && typeof status === 'number' && status >= 200 && status < 300) {
    return false;
  }
  // A certificate this process does not trust, or https to a server speaking plain http.
  if (tlsFailure(error)) return false;
  return PASSING_CODES.has(code as string);
}
