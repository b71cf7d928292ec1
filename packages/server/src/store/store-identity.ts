import { sql } from 'kysely';
import { DIALECT_TRAITS } from './dialect.js';
import type { Store } from './store.js';
import { IDENTITY } from './store-identity-migration.js';

/** The identity of the database the store is open on now; null where the backend tells none. */
export async function liveIdentity(store: Store): Promise<string | null> {
  const query = DIALECT_TRAITS[store.dialect].identityQuery;
  if (query === null) return null;
  const { rows } = await sql<{ identity: string }>`${sql.raw(query)}`.execute(store.db);
  return rows[0]?.identity ?? null;
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
