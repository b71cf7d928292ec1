import type { Kysely, Migration } from 'kysely';
import { DIALECT_TRAITS, type Dialect } from './dialect.js';

/**
 * The row of `store_identity` recording which database a store is (the
 * backend's `identityQuery`): on PostgreSQL
 * the cluster's system identifier and the database's OID, which a
 * `pg_restore` into a new database (or `CREATE DATABASE ... TEMPLATE`)
 * changes and a rename keeps. The cluster is part of it because a fresh
 * cluster numbers its first database as every other fresh cluster does
 * (16384): a restore onto a new server kept the OID. None on SQLite, whose
 * copies `airlock restore` fences itself.
 */
export const IDENTITY = 'database';

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
