import { describe, expect, it } from 'vitest';
import { freshPostgresDatabase, postgresSkipReason } from '../../testing/postgres.js';
import { Store } from '../store.js';
import { redactDatabaseUrl } from './postgres-url.js';

const pgSkip = await postgresSkipReason();
if (pgSkip)
  console.warn(`[airlock tests] skipping the store's description on PostgreSQL: ${pgSkip}`);

describe('redactDatabaseUrl', () => {
  it('hides the password of the user information, whatever it holds', () => {
    expect(redactDatabaseUrl('postgres://airlock:hunter2@db:5432/airlock')).toBe(
      'postgres://***@db:5432/airlock',
    );
    expect(redactDatabaseUrl('postgresql://u:p@ss@db/airlock')).toBe('postgresql://***@db/airlock');
    expect(redactDatabaseUrl('postgres://db/airlock')).toBe('postgres://db/airlock');
  });

  it('hides the value of every query parameter that carries a credential, and keeps the rest', () => {
    expect(
      redactDatabaseUrl(
        'postgres://airlock@db/airlock?sslmode=require&password=hunter2&sslpassword=k3y&application_name=x',
      ),
    ).toBe(
      'postgres://***@db/airlock?sslmode=require&password=***&sslpassword=***&application_name=x',
    );
    // However the name is spelled or encoded.
    expect(
      redactDatabaseUrl('postgres://db/a?PassWord=hunter2&pass%77ord=hunter2&auth_token=t'),
    ).toBe('postgres://db/a?PassWord=***&pass%77ord=***&auth_token=***');
    expect(redactDatabaseUrl('postgres:///a?host=/run/postgresql&password=hunter2#x')).toBe(
      'postgres:///a?host=/run/postgresql&password=***',
    );
  });
});

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
