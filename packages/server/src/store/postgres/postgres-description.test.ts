import { describe, expect, it } from 'vitest';
import { freshPostgresDatabase, postgresSkipReason } from '../../testing/postgres.js';
import { Store } from '../store.js';

const pgSkip = await postgresSkipReason();
if (pgSkip)
  console.warn(`[airlock tests] skipping the store's description on PostgreSQL: ${pgSkip}`);

describe.skipIf(pgSkip !== null)("a PostgreSQL store's description (what serve logs)", () => {
  it('carries no password given in the query', async () => {
    const url = new URL(await freshPostgresDatabase());
    url.password = 'in-userinfo';
    url.searchParams.set('password', 'in-query');
    const store = await Store.open({ databaseUrl: url.toString() });
    try {
      expect(store.description).toMatch(
        /^postgres postgres:\/\/\*\*\*@127\.0\.0\.1:\d+\/airlock_t_/,
      );
      expect(store.description).not.toContain('in-userinfo');
      expect(store.description).not.toContain('in-query');
    } finally {
      await store.close();
    }
  });
});
