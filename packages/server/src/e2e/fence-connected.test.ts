import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { startAirlock } from '../airlock.js';
import { client, waitFor } from '../testing/harness.js';
import { runLocalCli } from '../testing/operator-cli.js';
import { freshPostgresDatabase, postgresSkipReason } from '../testing/postgres.js';
import { workspaceWithTokens } from '../testing/workspace-tokens.js';

/**
 * `airlock fence` on PostgreSQL while a kernel still serves the database
 * failed the calls that kernel had out (an executor's claim in flight), which
 * the docs only warned of: any other session connected to the database may be
 * such a kernel, so the fence refuses, changing nothing, unless told they are
 * no kernel's (`--even-if-connected`).
 */

const pgSkip = await postgresSkipReason();

describe.skipIf(pgSkip)(
  'airlock fence with other sessions on the database',
  { timeout: 120_000 },
  () => {
    it('refuses while a kernel serves it, fences once none does, and --even-if-connected overrides', async () => {
      const databaseUrl = await freshPostgresDatabase();
      const airlock = await startAirlock({ databaseUrl, rateLimit: null, authFailureLimit: null });
      const { workspaceId, tokens } = await workspaceWithTokens(airlock.store, 'fence-connected');
      const ws = `/api/v1/workspaces/${workspaceId}`;
      const member = client(airlock.url, tokens.member);
      const executor = client(airlock.url, tokens.executor);
      let runId = '';
      try {
        const created = await client(airlock.url, tokens.agent).post(`${ws}/runs`, {
          approval_mode: 'bypass',
          input: 'release',
          provider: {
            kind: 'scripted',
            rounds: [{ tool_calls: [{ name: 'deploy' }] }, { final: 'ok' }],
          },
        });
        runId = created.body.id as string;
        await waitFor(
          async () => (await member.get(`${ws}/runs/${runId}/tasks/t1`)).body.state === 'runnable',
        );
        expect(
          (await executor.post(`/executor_api/v1/runs/${runId}/tasks/t1/claim`, {})).status,
        ).toBe(200);

        const refused = await runLocalCli(['fence', '--database-url', databaseUrl]);
        expect(refused).toMatchObject({ code: 1, stdout: '' });
        expect(refused.stderr).toMatch(
          /^airlock fence: kernel_running: (another session is|\d+ other sessions are) connected to the database, perhaps a kernel serving it/,
        );
        // Nothing was fenced: the executor's claim stands.
        expect((await member.get(`${ws}/runs/${runId}/tasks/t1`)).body.state).toBe('claimed');
      } finally {
        await airlock.close();
      }

      // A session that is no kernel's (a person's psql): refused too, unless told.
      const psql = new pg.Client({ connectionString: databaseUrl });
      await psql.connect();
      try {
        const stillRefused = await runLocalCli(['fence', '--database-url', databaseUrl]);
        expect(stillRefused.code).toBe(1);
        expect(stillRefused.stderr).toContain('another session is connected');
        const forced = await runLocalCli([
          'fence',
          '--database-url',
          databaseUrl,
          '--even-if-connected',
        ]);
        expect(forced.code, forced.stderr).toBe(0);
        expect(forced.stdout).toContain(`\t${runId}\tt1\ttool\tdeploy\tclaimed\n`);
        const { rows } = await psql.query(
          'select state from tasks where run_id = $1 and key = $2',
          [runId, 't1'],
        );
        expect(rows[0]?.state).toBe('failed');
      } finally {
        await psql.end();
      }
    });

    it('says --even-if-connected is for PostgreSQL only', async () => {
      const used = await runLocalCli([
        'fence',
        '--data-dir',
        '/nonexistent-airlock',
        '--even-if-connected',
      ]);
      expect(used.code).toBe(2);
      expect(used.stderr).toContain('--even-if-connected is for a PostgreSQL store');
    });
  },
);
