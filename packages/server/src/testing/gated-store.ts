import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import type { KernelContext } from '../kernel/context.js';
import type { Store } from '../store/store.js';
import { waitFor } from './harness.js';

/** Where a test steps in around a caller's units of work (see gated). */
export interface Gates {
  /** Runs before each of the caller's units of work starts. */
  before?: () => Promise<void>;
  /** Runs after a unit's work and before its COMMIT. */
  inside?: () => Promise<void>;
}

/**
 * The store as one caller sees it, with the interleaving a test needs (tests
 * only): the gates run around each of the caller's units of work; everything
 * else is the store itself. Races are ordered by these steps, never by timing.
 */
export function gated(store: Store, gates: Gates): Store {
  const view = Object.create(store) as Store;
  view.transaction = async (work) => {
    await gates.before?.();
    return store.transaction(async (tx) => {
      const value = await work(tx);
      await gates.inside?.();
      return value;
    });
  };
  return view;
}

/** A kernel context whose units of work pass through `gated` (tests only). */
export function gatedContext(ctx: KernelContext, gates: Gates): KernelContext {
  return { ...ctx, store: gated(ctx.store, gates) };
}

/** A workspace's retention export lines of one kind (`runs`, `events`, `conversations`, ...). */
export function exportedLines(
  dir: string,
  workspaceId: string,
  kind: string,
): Record<string, unknown>[] {
  const folder = join(dir, workspaceId);
  if (!existsSync(folder)) return [];
  return readdirSync(folder)
    .filter((name) => name.startsWith(`${kind}-`) && name.endsWith('.jsonl'))
    .flatMap((name) =>
      readFileSync(join(folder, name), 'utf8')
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as Record<string, unknown>),
    );
}

/** PostgreSQL (tests only): waits until a session of this database waits for a row lock another holds. */
export async function someoneWaitsForALock(store: Store): Promise<void> {
  await waitFor(
    async () => {
      const { rows } = await sql<{ n: number | string }>`
        select count(*) as n from pg_stat_activity
        where datname = current_database() and wait_event_type = 'Lock'`.execute(store.db);
      return Number(rows[0]!.n) > 0;
    },
    { what: 'a session to wait for a lock' },
  );
}
