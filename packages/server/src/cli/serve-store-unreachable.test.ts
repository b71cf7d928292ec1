import { describe, expect, it } from 'vitest';
import { runLocalCli } from '../testing/operator-cli.js';
import { storeUnreachableLine } from './serve-store-unreachable.js';

describe('airlock serve with a PostgreSQL store it cannot reach', { timeout: 60_000 }, () => {
  it('says which store and which setting, without the password, and exits 1', async () => {
    // Port 1 on loopback: nothing listens there, so the connection is refused at once.
    const outcome = await runLocalCli([
      'serve',
      '--port',
      '0',
      '--database-url',
      'postgres://ana:hunter2@127.0.0.1:1/airlock',
    ]);
    expect(outcome.code).toBe(1);
    expect(outcome.stderr).toBe(
      'airlock serve: store_unreachable: cannot reach the PostgreSQL store at ' +
        'postgres://ana:<password>@127.0.0.1:1/airlock (connect ECONNREFUSED 127.0.0.1:1); ' +
        'check --database-url or DATABASE_URL, and that PostgreSQL runs there and accepts connections\n',
    );
    expect(outcome.stdout).not.toContain('hunter2');
  });

  it('leaves other failures, and SQLite stores, to the general report', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), {
      code: 'ECONNREFUSED',
    });
    expect(storeUnreachableLine(refused, undefined)).toBeNull();
    const inUse = Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE' });
    expect(storeUnreachableLine(inUse, 'postgres://db/airlock')).toBeNull();
    expect(storeUnreachableLine(new Error('boom'), 'postgres://db/airlock')).toBeNull();
  });
});
