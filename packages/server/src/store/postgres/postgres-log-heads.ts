import pg from 'pg';
import { hideUrlCredentials } from '../../logging/url-credentials.js';
import { NotAnAirlockStoreError } from '../store-errors.js';

/**
 * The last sequence number of each workspace's log in the PostgreSQL store a
 * restore replaces, read in a read-only transaction on a connection of its
 * own (nothing is migrated or written): what `airlock fence
 * --replaced-database-url` numbers a pg_restore'd copy on after (see
 * restored-log.ts), as `airlock restore` does on SQLite.
 * @throws NotAnAirlockStoreError when the database has no Airlock tables.
 * @throws Error the driver's, when the database cannot be reached or read.
 */
export async function postgresLogHeads(databaseUrl: string): Promise<Map<string, number>> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('begin transaction read only');
    const { rows } = await client
      .query<{ id: string; event_seq: string | number }>('select id, event_seq from workspaces')
      .catch((error: unknown) => {
        // 42P01: undefined_table.
        if ((error as { code?: unknown }).code === '42P01') {
          throw new NotAnAirlockStoreError(`postgres ${hideUrlCredentials(databaseUrl)}`);
        }
        throw error;
      });
    return new Map(rows.map((row) => [row.id, Number(row.event_seq)]));
  } finally {
    await client.end().catch(() => {});
  }
}
