import { type Kysely, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { backends } from '../testing/stores.js';
import { pendingMigrations } from './migrations.js';
import { SQL } from './sql-handle.js';
import { Store } from './store.js';
import { StoreNewerSchemaError } from './store-errors.js';

/**
 * A store a newer Airlock migrated (a downgrade, or an older kernel started
 * beside newer ones on one PostgreSQL database) is refused with
 * store_newer_schema naming the migrations this build does not know, and is
 * left as it was; it used to fail with Kysely's "corrupted migrations".
 */
describe.each(await backends())('a store from a newer Airlock, on $name', (backend) => {
  it.skipIf(backend.skip !== null)('is refused with store_newer_schema', async () => {
    const { store, location, dispose } = await backend.open();
    try {
      await sql`insert into airlock_migrations (name, timestamp) values ('9999_from_the_future', '2099-01-01T00:00:00.000Z')`.execute(
        store[SQL].db,
      );
      const refused = await Store.open(location).then(
        async (opened) => {
          await opened.close();
          return null;
        },
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(StoreNewerSchemaError);
      expect((refused as StoreNewerSchemaError).code).toBe('store_newer_schema');
      expect((refused as Error).message).toContain('9999_from_the_future');
      expect((refused as Error).message).not.toMatch(/corrupted/);
      // Nothing was applied or removed.
      expect(await pendingMigrations(store[SQL].db as Kysely<unknown>, store.dialect)).toEqual([]);
    } finally {
      await dispose();
    }
  });
});
