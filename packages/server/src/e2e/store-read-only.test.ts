import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Airlock, startAirlock } from '../airlock.js';
import { PARKING_RUN } from '../testing/changing-workload.js';
import { client, waitFor } from '../testing/harness.js';
import { freshPostgresDatabase, postgresSkipReason } from '../testing/postgres.js';
import { workspaceWithTokens } from '../testing/workspace-tokens.js';

const skip = await postgresSkipReason();
if (skip) console.warn(`[airlock tests] skipping the read-only store test: ${skip}`);

describe.skipIf(skip !== null)('a kernel whose PostgreSQL turns read-only', () => {
  let airlock: Airlock;
  let admin: pg.Client;
  let name: string;

  /** Sets the database's default for new sessions and ends the kernel's current ones. */
  async function readOnly(on: boolean) {
    await admin.query(`alter database "${name}" set default_transaction_read_only = ${on}`);
    await admin.query(
      'select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
      [name],
    );
  }

  beforeAll(async () => {
    const databaseUrl = await freshPostgresDatabase();
    name = new URL(databaseUrl).pathname.slice(1);
    airlock = await startAirlock({ databaseUrl, rateLimit: null, authFailureLimit: null });
    admin = new pg.Client({ connectionString: process.env.AIRLOCK_TEST_DATABASE_URL });
    await admin.connect();
  });

  afterAll(async () => {
    await admin?.end();
    await airlock?.close();
  });

  it('refuses writes with 503 store_unavailable, serves reads, and recovers when it is writable again', async () => {
    const { workspaceId, tokens } = await workspaceWithTokens(airlock.store, 'ro');
    const ws = `/api/v1/workspaces/${workspaceId}`;
    const agent = client(airlock.url, tokens.agent);
    const member = client(airlock.url, tokens.member);
    const run = await agent.post(`${ws}/runs`, PARKING_RUN);
    expect(run.status).toBe(201);
    const approve = `${ws}/runs/${run.body.id}/tasks/t1/approve`;
    await readOnly(true);
    try {
      // The first query after the kill may meet a dropped connection; both answers are 503.
      const refused = await fetch(`${airlock.url}${approve}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tokens.member}`, 'content-type': 'application/json' },
        body: '{}',
      });
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('5');
      expect((await refused.json()).error.code).toBe('store_unavailable');
      // The pool may hold more than one killed connection: each answers 503 (unreachable) until the
      // kernel is on a fresh one, which then names the cause. No attempt may create a run.
      const created = await waitFor(async () => {
        const answer = await agent.post(`${ws}/runs`, PARKING_RUN);
        expect(answer.status).toBe(503);
        expect(answer.body.error.code).toBe('store_unavailable');
        return String(answer.body.error.detail).includes('read-only') ? answer : null;
      });
      expect(created.body.error.detail).toContain('read-only');
      const task = await waitFor(async () => {
        const answer = await member.get(`${ws}/runs/${run.body.id}/tasks/t1`);
        return answer.status === 200 ? answer : null;
      });
      expect(task.body.state).toBe('needs_approval');
      expect((await member.get(`${ws}/decisions`)).status).toBe(200);
    } finally {
      await readOnly(false);
    }
    const approved = await waitFor(async () => {
      const answer = await member.post(approve);
      return answer.status === 503 ? null : answer;
    });
    expect(approved.status).toBe(200);
    expect((await member.get(`${ws}/runs/${run.body.id}/tasks/t1`)).body.state).not.toBe(
      'needs_approval',
    );
  }, 30_000);
});
