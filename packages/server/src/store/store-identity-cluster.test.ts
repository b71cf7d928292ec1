import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { backends } from '../testing/stores.js';
import { databaseIdentity } from './database-identity.js';
import { SQL } from './sql-handle.js';
import { Store } from './store.js';
import { liveIdentity, recordedIdentity, recordIdentity } from './store-identity.js';

/**
 * A PostgreSQL store's identity names its cluster beside its database's
 * OID: a fresh cluster numbers its first database 16384 as every fresh
 * cluster does, so a pg_restore onto a new server kept the OID of the
 * database it came from, and the kernel's start took the copy for the
 * original and served calls that may have run after the backup unfenced.
 * A record an older version made of this very database is carried over.
 */

const postgres = (await backends()).find((backend) => backend.name === 'postgres');

describe.skipIf(!postgres || postgres.skip !== null)('a PostgreSQL store’s identity', () => {
  async function clusterAndOid(store: Store): Promise<{ cluster: string; oid: string }> {
    const { rows } = await sql<{ cluster: string; oid: string }>`
      select (select system_identifier::text from pg_control_system()) as cluster, oid::text as oid
      from pg_database where datname = current_database()`.execute(store[SQL].db);
    return rows[0]!;
  }

  it('names the cluster and the database', async () => {
    const { store, dispose } = await postgres!.open();
    try {
      const { cluster, oid } = await clusterAndOid(store);
      expect(await liveIdentity(store)).toBe(`${cluster}:${oid}`);
      // A database of the same OID on another cluster (a restore onto a new server) is another.
      await recordIdentity(store, `1${cluster}:${oid}`);
      expect(await recordedIdentity(store)).not.toBe(await liveIdentity(store));
    } finally {
      await dispose();
    }
  });

  it('carries over a record of this database made by an older version, and no other', async () => {
    const { store, location, dispose } = await postgres!.open();
    try {
      const { oid } = await clusterAndOid(store);
      const db = store[SQL].db;
      const reopen = async () => {
        // The store as a version before 0023 left it: the later migrations undone too.
        await sql`delete from airlock_migrations where name >= '0023_store_identity_cluster'`.execute(
          db,
        );
        await sql`alter table tasks drop column assistant_text`.execute(db);
        await sql`alter table tasks drop column working_directory`.execute(db);
        const opened = await Store.open(location);
        try {
          return {
            live: await liveIdentity(opened),
            recorded: await recordedIdentity(opened),
          };
        } finally {
          await opened.close();
        }
      };
      await recordIdentity(store, oid);
      const carried = await reopen();
      expect(carried.recorded).toBe(carried.live);

      // A record of another OID is a copy nobody fenced: left for the start to fence.
      await recordIdentity(store, '999999');
      const copied = await reopen();
      expect(copied.recorded).toBe('999999');
    } finally {
      await dispose();
    }
  });

  it('is the OID alone where the role may not read the cluster, and does not fail', async () => {
    const { store, location, dispose } = await postgres!.open();
    const db = store[SQL].db;
    const role = `airlock_probe_${Date.now()}`;
    const url = new URL(location.databaseUrl!);
    url.username = role;
    url.password = 'probe';
    await sql`create role ${sql.id(role)} login password 'probe'`.execute(db);
    await sql`revoke execute on function pg_control_system() from public`.execute(db);
    const restricted = new Kysely<unknown>({
      dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url.toString() }) }),
    });
    try {
      const { oid } = await clusterAndOid(store);
      expect(await databaseIdentity(restricted, 'postgres')).toBe(oid);
    } finally {
      await restricted.destroy();
      await sql`grant execute on function pg_control_system() to public`.execute(db);
      await sql`drop role ${sql.id(role)}`.execute(db);
      await dispose();
    }
  });
});
