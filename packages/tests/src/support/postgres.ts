import { randomBytes } from 'node:crypto';
import pg from 'pg';

let reachable: Promise<string | null> | undefined;

/**
 * Why this process runs no PostgreSQL cases, or null when the test server at
 * AIRLOCK_TEST_DATABASE_URL answers (`pnpm test` in CI starts one; locally
 * `bash scripts/pg-test-cluster.sh` prints its variables).
 */
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

/** Creates an empty database on the test server (the kernel migrates it on its first open); its URL. */
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

/** A store a test kernel can run on: SQLite in a temp dir, or a fresh PostgreSQL database. */
export interface KernelStore {
  name: 'sqlite' | 'postgres';
  /** Why this store's cases are skipped here, or null. */
  skip: string | null;
  /** What the kernel is started with: nothing for SQLite (a temp dir), a new database's URL. */
  location(): Promise<{ databaseUrl?: string }>;
}

/** Both stores, PostgreSQL skipped (with its reason logged) where no test server answers. */
export async function kernelStores(): Promise<KernelStore[]> {
  const skip = await postgresSkipReason();
  if (skip) console.warn(`[airlock tests] skipping PostgreSQL: ${skip}`);
  return [
    { name: 'sqlite', skip: null, location: async () => ({}) },
    {
      name: 'postgres',
      skip,
      location: async () => ({ databaseUrl: await freshPostgresDatabase() }),
    },
  ];
}
