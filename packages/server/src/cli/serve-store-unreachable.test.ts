import { describe, expect, it } from 'vitest';
import { runLocalCli } from '../testing/operator-cli.js';
import { postgresSkipReason } from '../testing/postgres.js';
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

describe('airlock serve with a PostgreSQL store that refuses it', () => {
  it('names a refused session and a failed TLS handshake, with what to check', () => {
    const url = 'postgres://ana:hunter2@db.internal/airlock';
    const noDatabase = Object.assign(new Error('database "airlock" does not exist'), {
      code: '3D000',
    });
    expect(storeUnreachableLine(noDatabase, url)).toBe(
      'airlock serve: store_unreachable: the PostgreSQL server at postgres://ana:<password>@db.internal/airlock ' +
        'refused the session (database "airlock" does not exist: 3D000); check the user, password and ' +
        'database in --database-url or DATABASE_URL, and that the role may connect',
    );
    const wrongPassword = Object.assign(
      new Error('password authentication failed for user "ana"'),
      {
        code: '28P01',
      },
    );
    expect(storeUnreachableLine(wrongPassword, url)).toContain('refused the session');
    const noTls = new Error('The server does not support SSL connections');
    expect(storeUnreachableLine(noTls, url)).toBe(
      'airlock serve: store_unreachable: cannot open a TLS connection to the PostgreSQL store at ' +
        'postgres://ana:<password>@db.internal/airlock (The server does not support SSL connections); ' +
        'check sslmode and the certificate files in --database-url or DATABASE_URL',
    );
    const untrusted = Object.assign(new Error('self-signed certificate'), {
      code: 'DEPTH_ZERO_SELF_SIGNED_CERT',
    });
    expect(storeUnreachableLine(untrusted, url)).toContain('cannot open a TLS connection');
  });
});

const skip = await postgresSkipReason();
if (skip) console.warn(`[airlock tests] skipping serve on a refusing PostgreSQL: ${skip}`);

describe.skipIf(skip !== null)(
  'airlock serve on a real PostgreSQL server that refuses it',
  {
    timeout: 60_000,
  },
  () => {
    // The test server takes no TLS: a URL that asks for it fails its handshake.
    it('token and fence on a URL asking for TLS the server lacks: store_unreachable, what to check', async () => {
      const url = new URL(process.env.AIRLOCK_TEST_DATABASE_URL!);
      url.searchParams.set('sslmode', 'verify-full');
      const tls =
        'cannot open a TLS connection to the PostgreSQL store (The server does not support SSL connections); check sslmode and the certificate files in';
      const token = await runLocalCli(['token', 'list', '--database-url', url.toString()]);
      expect(token.code).toBe(1);
      expect(token.stderr).toBe(
        `airlock token list: store_unreachable: ${tls} --database-url or DATABASE_URL\n`,
      );
      const fence = await runLocalCli(['fence', '--database-url', url.toString()]);
      expect(fence.code).toBe(1);
      expect(fence.stderr).toBe(
        `airlock fence: store_unreachable: ${tls} --database-url or DATABASE_URL\n`,
      );
      const replaced = await runLocalCli([
        'fence',
        '--database-url',
        process.env.AIRLOCK_TEST_DATABASE_URL!,
        '--replaced-database-url',
        url.toString(),
      ]);
      expect(replaced.code).toBe(1);
      expect(replaced.stderr).toBe(
        `airlock fence: store_unreachable: reading the replaced database: ${tls} --replaced-database-url; nothing was changed\n`,
      );
    });

    it('a database the server does not have: exit 1, store_unreachable, the setting named', async () => {
      const url = new URL(process.env.AIRLOCK_TEST_DATABASE_URL!);
      url.pathname = '/airlock_no_such_database';
      const outcome = await runLocalCli(['serve', '--port', '0', '--database-url', url.toString()]);
      expect(outcome.code).toBe(1);
      expect(outcome.stderr).toContain(
        'airlock serve: store_unreachable: the PostgreSQL server at ',
      );
      expect(outcome.stderr).toContain(
        'refused the session (database "airlock_no_such_database" does not exist: 3D000); check the user, password and database in --database-url or DATABASE_URL',
      );
    });

    it('token and fence on a database the server does not have: what to check, not "retry later"', async () => {
      const url = new URL(process.env.AIRLOCK_TEST_DATABASE_URL!);
      url.pathname = '/airlock_no_such_database';
      const refused =
        'store_unreachable: the PostgreSQL server refused the session (database "airlock_no_such_database" does not exist: 3D000); check the user, password and database in';
      const token = await runLocalCli(['token', 'list', '--database-url', url.toString()]);
      expect(token).toMatchObject({
        code: 1,
        stderr: `airlock token list: ${refused} --database-url or DATABASE_URL, and that the role may connect\n`,
      });
      const fence = await runLocalCli(['fence', '--database-url', url.toString()]);
      expect(fence).toMatchObject({
        code: 1,
        stderr: `airlock fence: ${refused} --database-url or DATABASE_URL, and that the role may connect\n`,
      });
    });
  },
);
