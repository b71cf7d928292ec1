import type { AdvisoryLockHold } from './backend.js';
import type { Store } from './store.js';

/**
 * The PostgreSQL advisory lock keys of the kernel, one per thing its
 * processes take turns at, kept together so that no two share a key.
 */
export const ADVISORY_LOCK_KEYS = {
  /** First starts creating the local workspace (cli/local-workspace.ts). */
  localWorkspace: 4_820_001,
  /** Retention passes (kernel/retention.ts). */
  retentionPass: 4_820_002,
  /** Starts checking whether the database is a copy, and fencing it (kernel/verbs/restore-fence.ts). */
  restoreFence: 4_820_003,
} as const;

export type { AdvisoryLockHold } from './backend.js';

/**
 * Runs `work` while holding a PostgreSQL advisory lock of this key, waiting
 * for it, so that processes sharing the database take turns. On SQLite,
 * whose file one kernel process serves, `work` simply runs.
 * @throws whatever `work` throws.
 */
export async function withAdvisoryLock<T>(
  store: Store,
  key: number,
  work: (hold: AdvisoryLockHold) => Promise<T>,
): Promise<T> {
  const outcome = await store.takeTurn({ key, wait: true }, work);
  if (!outcome.held) throw new Error(`advisory lock ${key} was not taken`);
  return outcome.value;
}

/**
 * Runs `work` while holding a PostgreSQL advisory lock of this key, or
 * answers `{held: false}` at once when another session holds it. On SQLite
 * `work` always runs.
 * @throws whatever `work` throws.
 */
export async function tryAdvisoryLock<T>(
  store: Store,
  key: number,
  work: (hold: AdvisoryLockHold) => Promise<T>,
): Promise<{ held: true; value: T } | { held: false }> {
  return store.takeTurn({ key, wait: false }, work);
}
