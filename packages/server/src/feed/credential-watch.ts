import { authenticate } from '../store/accounts.js';
import type { Store } from '../store/store.js';

/** How often the credentials of open sockets are asked about again. */
export const CREDENTIAL_RECHECK_MS = 10_000;

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

  constructor(
    private readonly store: Store,
    everyMs = CREDENTIAL_RECHECK_MS,
  ) {
    this.#timer = setInterval(() => void this.sweep(), everyMs);
    this.#timer.unref();
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
    if (this.#sweeping) return;
    this.#sweeping = true;
    try {
      for (const token of [...this.#watchers.keys()]) {
        const principal = await authenticate(this.store, token).catch(() => undefined);
        if (principal !== null) continue;
        const ended = this.#watchers.get(token);
        this.#watchers.delete(token);
        for (const revoked of ended ?? []) revoked();
      }
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
