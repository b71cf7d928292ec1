import type { Kysely, Migration } from 'kysely';
import { DIALECT_TRAITS, type Dialect } from './dialect.js';

/**
 * Restore fencing: what the database a store was last served from was
 * (store-identity.ts), so that a kernel starting on a copy of it (a
 * pg_restore into a new database) fences it before it serves.
 */
export function storeIdentityMigration(dialect: Dialect): Migration {
  const big = DIALECT_TRAITS[dialect].bigInteger;
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('store_identity')
        .addColumn('name', 'text', (c) => c.primaryKey())
        .addColumn('value', 'text', (c) => c.notNull())
        .addColumn('recorded_at', big, (c) => c.notNull())
        .execute();
    },
  };
}
