import { type Kysely, type Migration, sql } from 'kysely';
import { databaseIdentity, IDENTITY } from './database-identity.js';
import type { Dialect } from './dialect.js';

/**
 * A store's recorded identity names its cluster too (store-identity.ts): a
 * record an older version made of this very database (its OID alone, equal
 * to the database's now) is rewritten as the identity of this cluster's
 * database, so the next start does not take it for a copy. A record of
 * another OID is left as it was: the store is a copy nobody fenced, and the
 * kernel's start fences it.
 */
export function storeIdentityClusterMigration(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>) {
      const live = await databaseIdentity(db, dialect);
      // Null where the backend tells none; no colon where the server keeps its cluster unread.
      if (live === null || !live.includes(':')) return;
      const oid = live.slice(live.lastIndexOf(':') + 1);
      await sql`update store_identity set value = ${live} where name = ${IDENTITY} and value = ${oid}`.execute(
        db,
      );
    },
  };
}
