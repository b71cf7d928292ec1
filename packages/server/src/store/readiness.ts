import type { Kysely } from 'kysely';
import { pendingMigrations } from './migrations.js';
import type { Store } from './store.js';

/** Whether a kernel can serve: its store answers and every migration it knows is applied. */
export type Readiness =
  | { ready: true; store: string; durability: string }
  | { ready: false; code: 'store_unavailable' | 'migrations_pending'; detail: string };

/** How long the store may take to answer the readiness probe. */
const READINESS_TIMEOUT_MS = 2000;

/**
 * Asks the store (one read of the migrations table, bounded by a timeout)
 * whether the kernel is ready to serve; never throws.
 */
export async function checkReadiness(
  store: Store,
  timeoutMs = READINESS_TIMEOUT_MS,
): Promise<Readiness> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    const pending = await Promise.race([
      pendingMigrations(store.db as Kysely<unknown>, store.dialect),
      timedOut,
    ]);
    if (pending.length > 0) {
      return {
        ready: false,
        code: 'migrations_pending',
        detail: `the store lacks ${pending.length} migration(s) this kernel needs: ${pending.join(', ')}`,
      };
    }
    return { ready: true, store: store.dialect, durability: store.durability };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return {
      ready: false,
      code: 'store_unavailable',
      detail: `the store did not answer: ${reason}`,
    };
  } finally {
    clearTimeout(timer);
  }
}
