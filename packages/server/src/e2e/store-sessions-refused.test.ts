import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Airlock, startAirlock } from '../airlock.js';
import { waitFor } from '../testing/harness.js';
import { freshPostgresDatabase, postgresSkipReason } from '../testing/postgres.js';
import { workspaceWithTokens } from '../testing/workspace-tokens.js';

const skip = await postgresSkipReason();
if (skip) console.warn(`[airlock tests] skipping the refused PostgreSQL sessions: ${skip}`);

describe.skipIf(skip !== null)(
  'a kernel whose PostgreSQL refuses it new sessions or gives up on its statements',
  () => {
    let airlock: Airlock;
    let admin: pg.Client;
    let database: string;
    const role = `airlock_kernel_${randomBytes(4).toString('hex')}`;
    let runs: string;
    let token: string;

    /**
     * Terminates the database's sessions, so the kernel's next request needs a new one. With
     * `untilGone` (the database closed to new sessions, before a rename) it goes on terminating
     * until none is left: pg_terminate_backend only signals, a backend leaves pg_stat_activity once
     * it has exited, and a session the kernel was opening as the database closed (its LISTEN
     * connection reconnects by itself) shows up only after the first round. A rename meanwhile
     * fails with "being accessed by other users".
     */
    async function endSessions(name = database, untilGone = false) {
      const terminate = () =>
        admin.query(
          'select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
          [name],
        );
      if (!untilGone) {
        await terminate();
        return;
      }
      await waitFor(
        async () => {
          const left = await terminate();
          return left.rowCount === 0 ? true : null;
        },
        { what: `no session left on ${name}` },
      );
    }

    /** Lists runs until the answer is a 503 naming `reason` (a killed pooled session answers 503 too). */
    async function refusedWith(reason: string) {
      return waitFor(
        async () => {
          const answer = await fetch(runs, { headers: { authorization: `Bearer ${token}` } });
          const body = (await answer.json()) as { error?: { code: string; detail: string } };
          expect(answer.status, JSON.stringify(body)).toBe(503);
          expect(answer.headers.get('retry-after')).toBe('5');
          expect(body.error?.code).toBe('store_unavailable');
          return body.error?.detail.includes(reason) ? body.error.detail : null;
        },
        { what: `a 503 naming ${reason}` },
      );
    }

    async function served() {
      await waitFor(
        async () =>
          (await fetch(runs, { headers: { authorization: `Bearer ${token}` } })).status === 200,
        { what: 'the runs list served again' },
      );
    }

    beforeAll(async () => {
      admin = new pg.Client({ connectionString: process.env.AIRLOCK_TEST_DATABASE_URL });
      await admin.connect();
      const databaseUrl = new URL(await freshPostgresDatabase());
      database = databaseUrl.pathname.slice(1);
      // The kernel logs in as a role of its own (owning its database), so its login can be refused.
      await admin.query(`create role ${role} login`);
      await admin.query(`alter database ${database} owner to ${role}`);
      databaseUrl.username = role;
      airlock = await startAirlock({
        databaseUrl: databaseUrl.toString(),
        rateLimit: null,
        authFailureLimit: null,
      });
      const made = await workspaceWithTokens(airlock.store, 'refused');
      runs = `${airlock.url}/api/v1/workspaces/${made.workspaceId}/runs`;
      token = made.tokens.member;
    });

    afterAll(async () => {
      await airlock?.close();
      if (admin) {
        await admin.query(`alter role ${role} login`).catch(() => {});
        await admin.query(`drop database if exists ${database} with (force)`).catch(() => {});
        await admin.query(`drop role if exists ${role}`).catch(() => {});
        await admin.end();
      }
    });

    it('answers 503 store_unavailable while its role may not log in (28000), and recovers', async () => {
      await served();
      await admin.query(`alter role ${role} nologin`);
      await endSessions();
      expect(await refusedWith('(login refused: 28000)')).toMatch(/^the store is unavailable/);
      await admin.query(`alter role ${role} login`);
      await served();
    });

    it('answers 503 store_unavailable while its database takes no connections (55000), and recovers', async () => {
      await admin.query(`alter database ${database} allow_connections false`);
      await endSessions();
      await refusedWith('(database not accepting connections: 55000)');
      await admin.query(`alter database ${database} allow_connections true`);
      await served();
    });

    it('answers 503 store_unavailable while its role may not connect to its database (42501), and recovers', async () => {
      await admin.query(`revoke connect on database ${database} from public, ${role}`);
      await endSessions();
      try {
        await refusedWith('(permission to connect refused: 42501)');
      } finally {
        await admin.query(`grant connect on database ${database} to public, ${role}`);
      }
      await served();
    });

    /** Sets `setting` on the kernel's role, holds `runs` locked from another session, and lists runs. */
    async function refusedBehindLock(setting: string, reason: string) {
      await admin.query(`alter role ${role} set ${setting} = '100ms'`);
      await endSessions();
      const url = new URL(process.env.AIRLOCK_TEST_DATABASE_URL!);
      url.pathname = `/${database}`;
      const locker = new pg.Client({ connectionString: url.toString() });
      await locker.connect();
      try {
        await locker.query('begin');
        await locker.query('lock table runs in access exclusive mode');
        await refusedWith(reason);
      } finally {
        await locker.query('rollback').catch(() => {});
        await locker.end();
        await admin.query(`alter role ${role} reset ${setting}`);
        await endSessions();
      }
      await served();
    }

    it("answers 503 store_unavailable when a lock wait outlasts the role's lock_timeout (55P03), and recovers", async () => {
      await refusedBehindLock('lock_timeout', '(lock wait timed out (lock_timeout): 55P03)');
    });

    it("answers 503 store_unavailable when a statement outlasts the role's statement_timeout (57014), and recovers", async () => {
      await refusedBehindLock(
        'statement_timeout',
        '(statement canceled (statement_timeout or an operator): 57014)',
      );
    });

    it('answers 503 store_unavailable while its database is gone by its name (3D000), and recovers', async () => {
      const away = `${database}_away`;
      // Closed to new sessions first, so that none is open when it is renamed.
      await admin.query(`alter database ${database} allow_connections false`);
      await endSessions(database, true);
      await admin.query(`alter database ${database} rename to ${away}`);
      await admin.query(`alter database ${away} allow_connections true`);
      try {
        await refusedWith('(database not found: 3D000)');
      } finally {
        await admin.query(`alter database ${away} allow_connections false`);
        await endSessions(away, true);
        await admin.query(`alter database ${away} rename to ${database}`);
        await admin.query(`alter database ${database} allow_connections true`);
      }
      await served();
    });
  },
);
