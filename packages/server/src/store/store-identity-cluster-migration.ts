import { type Kysely, type Migration, sql } from 'kysely';
import { DIALECT_TRAITS, type Dialect } from './dialect.js';
import { IDENTITY } from './store-identity-migration.js';

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
      const query = DIALECT_TRAITS[dialect].identityQuery;
      if (query === null) return;
      const { rows } = await sql<{ identity: string }>`${sql.raw(query)}`.execute(db);
      const live = rows[0]?.identity;
      if (live === undefined) return;
      const oid = live.slice(live.lastIndexOf(':') + 1);
      await sql`update store_identity set value = ${live} where name = ${IDENTITY} and value = ${oid}`.execute(
        db,
      );
    },
  };
}
