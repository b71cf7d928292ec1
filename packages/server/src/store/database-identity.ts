import { type Kysely, sql } from 'kysely';
import { DIALECT_TRAITS, type Dialect } from './dialect.js';

/**
 * The row of `store_identity` recording which database a store is: on
 * PostgreSQL the cluster's system identifier and the database's OID, which
 * a `pg_restore` into a new database (or `CREATE DATABASE ... TEMPLATE`)
 * changes and a rename keeps. The cluster is part of it because a fresh
 * cluster numbers its first database as every other fresh cluster does
 * (16384): a restore onto a new server kept the OID. None on SQLite, whose
 * copies `airlock restore` fences itself.
 */
export const IDENTITY = 'database';

/**
 * The identity of the database `db` is open on (see {@link IDENTITY}):
 * `<cluster>:<database>`, or the database's alone where the server does
 * not let its cluster be read; null where the backend tells none.
 * @throws Error when the database cannot be read.
 */
export async function databaseIdentity(
  db: Kysely<unknown>,
  dialect: Dialect,
): Promise<string | null> {
  const { identityQuery, clusterQuery } = DIALECT_TRAITS[dialect];
  if (identityQuery === null) return null;
  const { rows } = await sql<{ identity: string }>`${sql.raw(identityQuery)}`.execute(db);
  const database = rows[0]?.identity;
  if (database === undefined) return null;
  if (clusterQuery === null) return database;
  const available = await sql<{ available: boolean }>`${sql.raw(clusterQuery.available)}`.execute(
    db,
  );
  if (available.rows[0]?.available !== true) return database;
  const cluster = await sql<{ cluster: string }>`${sql.raw(clusterQuery.read)}`.execute(db);
  const name = cluster.rows[0]?.cluster;
  return name === undefined ? database : `${name}:${database}`;
}
