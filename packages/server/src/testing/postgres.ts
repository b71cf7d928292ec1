import { randomBytes } from 'node:crypto';
import pg from 'pg';

let reachable: Promise<string | null> | undefined;

/** Why PostgreSQL tests are skipped, or null when AIRLOCK_TEST_DATABASE_URL answers. */
export function postgresSkipReason(): Promise<string | null> {
  reachable ??= (async () => {
    const url = process.env.AIRLOCK_TEST_DATABASE_URL;
    if (!url)
      return 'AIRLOCK_TEST_DATABASE_URL is unset (start one with scripts/pg-test-cluster.sh)';
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
    try {
      await client.connect();
      await client.query('select 1');
      return null;
    } catch (error) {
      return `PostgreSQL at AIRLOCK_TEST_DATABASE_URL is unreachable: ${(error as Error).message}`;
    } finally {
      await client.end().catch(() => {});
    }
  })();
  return reachable;
}

/** Creates a fresh empty database on the test server and returns its URL. */
export async function freshPostgresDatabase(): Promise<string> {
  const url = new URL(process.env.AIRLOCK_TEST_DATABASE_URL!);
  const name = `airlock_t_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    await client.query(`create database ${name}`);
  } finally {
    await client.end();
  }
  url.pathname = `/${name}`;
  return url.toString();
}
