import pg from 'pg';
import { OTHER_SESSIONS_QUERY } from '../pending-upgrade.js';

/**
 * How many other client sessions are connected to the PostgreSQL database at
 * `databaseUrl`, read on a connection of its own that is closed before it
 * answers: a kernel keeps one open for as long as it serves (the session
 * that LISTENs for other kernels' commits), so any other session may be one.
 * Null when this role cannot read `pg_stat_activity` for them.
 * @throws Error the driver's, when the database cannot be reached.
 */
export async function otherSessionsOn(databaseUrl: string): Promise<number | null> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string | number }>(OTHER_SESSIONS_QUERY);
    return Number(rows[0]?.n ?? 0);
  } catch {
    return null;
  } finally {
    await client.end().catch(() => {});
  }
}
