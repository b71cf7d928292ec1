import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { startAirlock } from '../airlock.js';
import { client, waitFor } from '../testing/harness.js';
import { freshPostgresDatabase, postgresSkipReason } from '../testing/postgres.js';
import { workspaceWithTokens } from '../testing/workspace-tokens.js';

const run = promisify(execFile);

/** Why the round trip cannot run here: no PostgreSQL, or no pg_dump/pg_restore on the PATH. */
async function skipReason(): Promise<string | null> {
  const postgres = await postgresSkipReason();
  if (postgres) return postgres;
  for (const tool of ['pg_dump', 'pg_restore']) {
    const found = await run(tool, ['--version']).then(
      () => true,
      () => false,
    );
    if (!found) return `${tool} is not installed (Debian's postgresql-client)`;
  }
  return null;
}

const skip = await skipReason();
if (skip) console.warn(`[airlock tests] skipping the pg_dump/pg_restore round trip: ${skip}`);
const root = mkdtempSync(join(tmpdir(), 'airlock-pg-dump-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe.skipIf(skip !== null)('PostgreSQL backup with pg_dump -Fc and pg_restore', () => {
  it('brings back parks with their clocks, the retention policy and the audit trail', async () => {
    const source = await freshPostgresDatabase();
    const first = await startAirlock({
      databaseUrl: source,
      rateLimit: null,
      authFailureLimit: null,
    });
    const { workspaceId, tokens } = await workspaceWithTokens(first.store, 'dump');
    const ws = `/api/v1/workspaces/${workspaceId}`;
    const agent = client(first.url, tokens.agent);
    const member = client(first.url, tokens.member);
    const created = await agent.post(`${ws}/runs`, {
      approval_mode: 'ask',
      input: 'deploy',
      provider: {
        kind: 'scripted',
        rounds: [{ tool_calls: [{ name: 'deploy' }] }, { final: 'ok' }],
      },
    });
    const runId = created.body.id as string;
    const parked = await waitFor(async () => {
      const task = await member.get(`${ws}/runs/${runId}/tasks/t1`);
      return task.body.state === 'needs_approval' ? task.body : null;
    });
    await member.put(`${ws}/retention`, { events_days: 90, runs_days: 90, audit_days: 365 });
    const audit = await (
      await fetch(`${first.url}${ws}/audit`, {
        headers: { authorization: `Bearer ${tokens.member}` },
      })
    ).text();
    await first.close();

    // The commands docs/backup-restore.md gives, against the real server.
    const file = join(root, 'airlock.dump');
    await run('pg_dump', ['--format=custom', '--no-owner', '--file', file, source]);
    const target = await freshPostgresDatabase();
    await run('pg_restore', ['--no-owner', '--exit-on-error', '--dbname', target, file]);

    const second = await startAirlock({
      databaseUrl: target,
      rateLimit: null,
      authFailureLimit: null,
    });
    try {
      const member2 = client(second.url, tokens.member);
      const task = await member2.get(`${ws}/runs/${runId}/tasks/t1`);
      expect(task.body).toMatchObject({ state: 'needs_approval', deadline_at: parked.deadline_at });
      expect((await member2.get(`${ws}/retention`)).body).toMatchObject({
        events_days: 90,
        runs_days: 90,
        audit_days: 365,
      });
      const auditAfter = await (
        await fetch(`${second.url}${ws}/audit`, {
          headers: { authorization: `Bearer ${tokens.member}` },
        })
      ).text();
      expect(auditAfter).toBe(audit);
      // The restored kernel decides, and numbers its next events after the restored ones.
      expect((await member2.post(`${ws}/runs/${runId}/tasks/t1/approve`)).status).toBe(200);
      const events = (await member2.get(`${ws}/runs/${runId}/events?limit=100`)).body.events;
      const seqs: number[] = events.map((event: { seq: number }) => event.seq);
      expect(seqs).toEqual([...new Set(seqs)].sort((a, b) => a - b));
    } finally {
      await second.close();
    }
  });
});
