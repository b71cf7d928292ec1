import { RateLimitedError } from '../api/rate-limit.js';
import { authenticate } from '../store/accounts.js';
import type { Store } from '../store/store.js';

/** How often the credentials of open sockets are asked about again. */
export const CREDENTIAL_RECHECK_MS = 10_000;

/** Live feeds (sockets, cables, tRPC subscriptions) one credential may hold open in a kernel. */
export const DEFAULT_MAX_FEEDS = 1000;

/** How long a client refused for holding too many feeds is told to wait. */
const FEEDS_RETRY_AFTER_SECONDS = 5;

/**
 * Ends what a credential holds open once it stops working (revoked, or its
 * application removed), in this process or another sharing the store: every
 * `everyMs` it asks the store about each distinct token of its watchers, one
 * lookup per token however many sockets share it, and calls the watchers of
 * a token the store no longer knows. A store that cannot answer is asked
 * again next time; nothing is ended on its account.
 */
export class CredentialWatch {
  readonly #watchers = new Map<string, Set<() => void>>();
  readonly #timer: NodeJS.Timeout;
  #sweeping = false;
  /** Set when a sweep was asked for while one ran: it may have asked about a token already. */
  #again = false;

  /** `maxOpen`: the most live feeds one token may hold open here (Infinity: no bound). */
  constructor(
    private readonly store: Store,
    everyMs = CREDENTIAL_RECHECK_MS,
    private readonly maxOpen = DEFAULT_MAX_FEEDS,
  ) {
    this.#timer = setInterval(() => void this.sweep(), everyMs);
    this.#timer.unref();
  }

  /**
   * Refuses a new feed for `token` when it already holds `maxOpen` open: each
   * one holds a subscription and its buffers for as long as it stays open.
   * @throws RateLimitedError (429, `Retry-After`), which the SDK's feeds wait out.
   */
  admit(token: string): void {
    const open = this.#watchers.get(token)?.size ?? 0;
    if (open < this.maxOpen) return;
    throw new RateLimitedError(
      FEEDS_RETRY_AFTER_SECONDS,
      `this credential already holds ${open} feeds open in this kernel, the most it may (--max-feeds); close one, or retry after ${FEEDS_RETRY_AFTER_SECONDS} s`,
    );
  }

  /** Calls `revoked` once when `token` stops working; returns the function that stops watching. */
  watch(token: string, revoked: () => void): () => void {
    let watchers = this.#watchers.get(token);
    if (!watchers) {
      watchers = new Set();
      this.#watchers.set(token, watchers);
    }
    watchers.add(revoked);
    return () => {
      const current = this.#watchers.get(token);
      current?.delete(revoked);
      if (current?.size === 0) this.#watchers.delete(token);
    };
  }

  /** Asks about every watched token now; resolves once the ended watchers were called. */
  async sweep(): Promise<void> {
    if (this.#sweeping) {
      this.#again = true;
      return;
    }
    this.#sweeping = true;
    try {
      do {
        this.#again = false;
        for (const token of [...this.#watchers.keys()]) {
          const principal = await authenticate(this.store, token).catch(() => undefined);
          if (principal !== null) continue;
          const ended = this.#watchers.get(token);
          this.#watchers.delete(token);
          for (const revoked of ended ?? []) revoked();
        }
      } while (this.#again);
    } finally {
      this.#sweeping = false;
    }
  }

  /** Stops asking. */
  close(): void {
    clearInterval(this.#timer);
    this.#watchers.clear();
  }
}
