import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { Store } from '../store/store.js';

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

let version: Promise<number> | undefined;

/** The test server's `server_version_num` (150004 for 15.4), asked once per process. */
function serverVersion(client: pg.Client): Promise<number> {
  version ??= client
    .query<{ server_version_num: string }>('show server_version_num')
    .then(({ rows }) => Number(rows[0]?.server_version_num ?? 0));
  return version;
}

/** Creates a fresh database on the test server (a copy of `template`, else empty); its URL. */
async function createDatabase(template?: string): Promise<string> {
  const url = new URL(process.env.AIRLOCK_TEST_DATABASE_URL!);
  const name = `airlock_t_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    // FILE_COPY copies the template's files (the test server does not fsync): about 20 ms.
    // PostgreSQL before 15 has no STRATEGY and copies files that way anyway.
    const strategy = (await serverVersion(client)) >= 150000 ? ' strategy file_copy' : '';
    await client.query(
      template
        ? `create database ${name} template ${template}${strategy}`
        : `create database ${name}`,
    );
  } finally {
    await client.end();
  }
  url.pathname = `/${name}`;
  return url.toString();
}

/** Creates a fresh empty database on the test server and returns its URL. */
export function freshPostgresDatabase(): Promise<string> {
  return createDatabase();
}

let migratedTemplate: Promise<string> | undefined;

/**
 * Creates a fresh database holding what a store's first open leaves (every
 * migration applied, nothing else) and returns its URL: a copy of a template
 * this process migrates once, instead of migrating each test's database
 * again (about 200 ms of each of some 600 stores a run opens). A test of the
 * migrations themselves starts from {@link freshPostgresDatabase}.
 */
export async function freshMigratedPostgresDatabase(): Promise<string> {
  migratedTemplate ??= (async () => {
    const url = await createDatabase();
    const store = await Store.open({ databaseUrl: url });
    await store.close();
    return new URL(url).pathname.slice(1);
  })();
  return createDatabase(await migratedTemplate);
}
