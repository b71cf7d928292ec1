import type { Kysely } from 'kysely';
import { databaseIdentity, IDENTITY } from './database-identity.js';
import type { Store } from './store.js';

/** The identity of the database the store is open on now; null where the backend tells none. */
export async function liveIdentity(store: Store): Promise<string | null> {
  return databaseIdentity(store.db as Kysely<unknown>, store.dialect);
}

/** The identity recorded by the last start (or fence) on this store; undefined when none was. */
export async function recordedIdentity(store: Store): Promise<string | undefined> {
  const row = await store.db
    .selectFrom('store_identity')
    .select('value')
    .where('name', '=', IDENTITY)
    .executeTakeFirst();
  return row?.value;
}

/** Records the identity of the database the store is open on. */
export async function recordIdentity(store: Store, value: string): Promise<void> {
  await store.db
    .insertInto('store_identity')
    .values({ name: IDENTITY, value, recorded_at: store.now() })
    .onConflict((oc) => oc.column('name').doUpdateSet({ value, recorded_at: store.now() }))
    .execute();
}
