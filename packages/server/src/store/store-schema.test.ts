import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { freshPostgresDatabase, postgresSkipReason } from '../testing/postgres.js';
import { Store } from './store.js';
import { NotAnAirlockStoreError } from './store-errors.js';
import { NoStoreSchemaError } from './store-schema.js';

/** The database URL with a search_path: its first existing schema holds the store. */
function inSchema(url: string, searchPath: string): string {
  const withPath = new URL(url);
  withPath.searchParams.set('options', `-c search_path=${searchPath}`);
  return withPath.toString();
}

async function query<T extends pg.QueryResultRow>(url: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text)).rows;
  } finally {
    await client.end();
  }
}

const tablesIn = async (url: string, schema: string) =>
  (
    await query<{ n: string }>(
      url,
      `select count(*) as n from pg_tables where schemaname = '${schema}'`,
    )
  ).map((row) => Number(row.n))[0];

/**
 * Two stores in one PostgreSQL database, each in a schema of its own (the
 * URL's search_path): the second used to fail its first start with
 * `relation "airlock_migrations_lock" does not exist`, Kysely having taken
 * the first store's history table for its own.
 */
describe.skipIf((await postgresSkipReason()) !== null)('a store in a schema of its own', () => {
  it('starts beside a store in public, with its own tables and history', async () => {
    const url = await freshPostgresDatabase();
    const first = await Store.open({ databaseUrl: url });
    await first.close();
    await query(url, 'create schema staging');

    const staging = inSchema(url, 'staging');
    const second = await Store.open({ databaseUrl: staging });
    await second.close();
    const inPublic = await tablesIn(url, 'public');
    expect(await tablesIn(url, 'staging')).toBe(inPublic);
    // Its own history: every migration, recorded once in each schema.
    const histories = await query<{ schema: string; n: string }>(
      url,
      `select 'public' as schema, count(*) as n from public.airlock_migrations
       union all select 'staging', count(*) from staging.airlock_migrations`,
    );
    expect(histories[0]?.n).toBe(histories[1]?.n);
    // Opened again, it is already up to date and still its own.
    const again = await Store.open({ databaseUrl: staging }, Date.now, { existing: true });
    await again.close();
  });

  it('takes no store in another schema for its own', async () => {
    const url = await freshPostgresDatabase();
    const first = await Store.open({ databaseUrl: url });
    await first.close();
    await query(url, 'create schema empty_one');
    const refused = await Store.open({ databaseUrl: inSchema(url, 'empty_one') }, Date.now, {
      existing: true,
    }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(NotAnAirlockStoreError);
    expect(await tablesIn(url, 'empty_one')).toBe(0);
  });

  it('refuses a search_path that names no schema, creating nothing', async () => {
    const url = await freshPostgresDatabase();
    const refused = await Store.open({ databaseUrl: inSchema(url, 'no_such_schema') }).catch(
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(NoStoreSchemaError);
    expect((refused as NoStoreSchemaError).code).toBe('store_schema_missing');
    expect((refused as Error).message).toContain('no_such_schema');
    expect(await tablesIn(url, 'public')).toBe(0);
  });
});
