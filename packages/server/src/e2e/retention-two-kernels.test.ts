import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { client, waitFor } from '../testing/harness.js';
import { type KernelProcess, startKernelProcess } from '../testing/kernel-process.js';
import { freshPostgresDatabase, postgresSkipReason } from '../testing/postgres.js';

const skip = await postgresSkipReason();
if (skip) console.warn(`[airlock tests] skipping retention on two kernel processes: ${skip}`);
const DAY = 24 * 60 * 60 * 1000;
// 2,000 events and 200 runs: several batches of at most 500 rows, for both kernels to share.
const RUNS = 200;
const EVENTS_PER_RUN = 10;
const root = mkdtempSync(join(tmpdir(), 'airlock-retention-two-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The event types each seeded run's log cycles through: decisions (audit) and lifecycle noise. */
const TYPES = [
  'run.created',
  'run.round_started',
  'run.model_read',
  'task.granted',
  'task.claimed',
  'task.succeeded',
  'run.round_started',
  'run.model_read',
  'task.approved',
  'run.completed',
];

/**
 * Writes `RUNS` ended runs, 200 days old, each with a task row, a member
 * approval and `EVENTS_PER_RUN` events numbered after the workspace's head,
 * straight into the database (as a store that grew for months would hold them).
 */
async function seedOldRuns(databaseUrl: string, workspaceId: string): Promise<void> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    await db.query('begin');
    const total = RUNS * EVENTS_PER_RUN;
    const head = await db.query<{ base: string }>(
      'update workspaces set event_seq = event_seq + $1 where id = $2 returning event_seq - $1 as base',
      [total, workspaceId],
    );
    const base = Number(head.rows[0]!.base);
    const app = (await db.query<{ id: string }>('select id from agent_applications limit 1'))
      .rows[0]!.id;
    const at = Date.now() - 200 * DAY;
    await db.query(
      `insert into runs (id, workspace_id, agent_application_id, state, phase, approval_mode, approval_rules,
         tool_aliases, provider, input, on_failure, round, task_counter, created_by, created_at, updated_at, ended_at)
       select 'run_seed_' || n, $1, $2, 'completed', 'done', 'bypass', '[]', '{}', '{"kind":"scripted"}', '"seed"',
         'continue', 2, 1, 'seed', $3::bigint + n, $3::bigint + n, $3::bigint + n
       from generate_series(1, $4::int) n`,
      [workspaceId, app, at, RUNS],
    );
    await db.query(
      `insert into tasks (workspace_id, run_id, key, round, origin, kind, state, tool_name, tool_input,
         on_failure, attempts, created_at, updated_at, decision, result)
       select $1, 'run_seed_' || n, 't1', 1, 'model', 'tool', 'succeeded', 'bash', '{"command":"ls"}',
         'continue', 1, $2::bigint + n, $2::bigint + n,
         '{"outcome":"granted","granted_by":"mode","layer":"approval_rules","matched":[]}', '"ok"'
       from generate_series(1, $3::int) n`,
      [workspaceId, at, RUNS],
    );
    await db.query(
      `insert into task_approvals (workspace_id, run_id, task_key, row_version, principal, created_at)
       select $1, 'run_seed_' || n, 't1', 'v1', 'member:cred_seed', $2::bigint + n
       from generate_series(1, $3::int) n`,
      [workspaceId, at, RUNS],
    );
    await db.query(
      `insert into run_events (workspace_id, seq, run_id, task_key, type, data, principal, created_at)
       select $1, $2::bigint + (n - 1) * $4::int + e + 1, 'run_seed_' || n,
         case when (($5::text[])[e + 1]) like 'task.%' then 't1' end, ($5::text[])[e + 1], '{}',
         case when ($5::text[])[e + 1] = 'task.approved' then 'member:cred_seed' end, $3::bigint + n
       from generate_series(1, $6::int) n, generate_series(0, $4::int - 1) e`,
      [workspaceId, base, at, EVENTS_PER_RUN, TYPES, RUNS],
    );
    await db.query('commit');
  } finally {
    await db.end();
  }
}

/** The same old runs (task rows and events, no approvals) in a stopped kernel's SQLite store. */
function seedOldSqliteRuns(db: SqliteDatabase.Database, workspaceId: string): void {
  const app = (db.prepare('select id from agent_applications limit 1').get() as { id: string }).id;
  const at = Date.now() - 200 * DAY;
  const run = db.prepare(
    `insert into runs (id, workspace_id, agent_application_id, state, phase, approval_mode, approval_rules,
       tool_aliases, provider, input, on_failure, round, task_counter, created_by, created_at, updated_at, ended_at)
     values (?, ?, ?, 'completed', 'done', 'bypass', '[]', '{}', '{"kind":"scripted"}', '"seed"', 'continue',
       2, 1, 'seed', ?, ?, ?)`,
  );
  const task = db.prepare(
    `insert into tasks (workspace_id, run_id, key, round, origin, kind, state, tool_name, tool_input,
       on_failure, attempts, created_at, updated_at, decision, result)
     values (?, ?, 't1', 1, 'model', 'tool', 'succeeded', 'bash', '{"command":"ls"}', 'continue', 1, ?, ?,
       '{"outcome":"granted","granted_by":"mode","layer":"approval_rules","matched":[]}', '"ok"')`,
  );
  const event = db.prepare(
    `insert into run_events (workspace_id, seq, run_id, task_key, type, data, principal, created_at)
     values (?, ?, ?, ?, ?, '{}', null, ?)`,
  );
  db.transaction(() => {
    let seq = (
      db.prepare('select event_seq from workspaces where id = ?').get(workspaceId) as {
        event_seq: number;
      }
    ).event_seq;
    for (let n = 1; n <= RUNS; n++) {
      const runId = `run_seed_${n}`;
      run.run(runId, workspaceId, app, at + n, at + n, at + n);
      task.run(workspaceId, runId, at + n, at + n);
      for (const type of TYPES) {
        seq += 1;
        event.run(workspaceId, seq, runId, type.startsWith('task.') ? 't1' : null, type, at + n);
      }
    }
    db.prepare('update workspaces set event_seq = ? where id = ?').run(seq, workspaceId);
  })();
}

/**
 * Every JSON line of one kind in an export directory (all workspaces, all days). `whileWriting`
 * (a poll while kernels export): a last line with no newline yet is a batch still being written,
 * left for later. Without it such a line fails the parse, as a torn export left behind should.
 */
function exportLines(
  dir: string,
  workspaceId: string,
  kind: string,
  options: { whileWriting?: boolean } = {},
): Record<string, unknown>[] {
  const folder = join(dir, workspaceId);
  if (!existsSync(folder)) return [];
  return readdirSync(folder)
    .filter((name) => name.startsWith(`${kind}-`) && name.endsWith('.jsonl'))
    .flatMap((name) => {
      let text: string;
      try {
        text = readFileSync(join(folder, name), 'utf8');
      } catch (error) {
        // A step whose delete failed cuts its export back, removing a file it alone wrote:
        // listed a moment ago, gone now, it holds no line.
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
        throw error;
      }
      return (options.whileWriting ? text.slice(0, text.lastIndexOf('\n') + 1) : text)
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    });
}

/** How many times each value occurs, for the values that occur more than once. */
function repeated(values: readonly unknown[]): unknown[] {
  const seen = new Map<unknown, number>();
  for (const value of values) seen.set(value, (seen.get(value) ?? 0) + 1);
  return [...seen].filter(([, count]) => count > 1).map(([value]) => value);
}

/**
 * Checks that every seeded event left the store once (as an event line or an audit line) and
 * every seeded run once, across the export lines `lines` gives per kind; returns the run lines.
 */
function expectSeededRowsExportedOnce(
  lines: (kind: string) => Record<string, unknown>[],
): Record<string, unknown>[] {
  const seeded = (line: Record<string, unknown>) =>
    String(line.run_id ?? (line.run as { id: string } | undefined)?.id).startsWith('run_seed_');
  const seqs = [...lines('events'), ...lines('audit')].filter(seeded).map((line) => line.seq);
  expect(repeated(seqs)).toEqual([]);
  expect(seqs).toHaveLength(RUNS * EVENTS_PER_RUN);
  const runs = lines('runs').filter(seeded);
  const runIds = runs.map((line) => (line.run as { id: string }).id);
  expect(repeated(runIds)).toEqual([]);
  expect(runIds).toHaveLength(RUNS);
  return runs;
}

/**
 * The kernel processes a case started, stopped when it ends: the cases run at once (each waits on
 * its own kernels and database), so none may stop another's.
 */
function kernelsOfCase(onTestFinished: (fn: () => Promise<void>) => void): KernelProcess[] {
  const kernels: KernelProcess[] = [];
  onTestFinished(async () => {
    for (const kernel of kernels.splice(0)) await kernel.stop();
  });
  return kernels;
}

describe.skipIf(skip !== null)(
  'retention with two kernel processes on one PostgreSQL database',
  { concurrent: true },
  () => {
    it('exports each pruned row exactly once, whichever kernel prunes it', async ({
      onTestFinished,
    }) => {
      const kernels = kernelsOfCase(onTestFinished);
      const databaseUrl = await freshPostgresDatabase();
      const dirs = [mkdtempSync(join(root, 'a-')), mkdtempSync(join(root, 'b-'))];
      // At full pace: the test is of exactly-once export, not of how pruning shares the kernel.
      const args = (dir: string) => [
        '--retention-interval',
        '100ms',
        '--retention-pace',
        '1',
        '--retention-export-dir',
        dir,
      ];
      kernels.push(await startKernelProcess({ databaseUrl, args: args(dirs[0]!) }));
      kernels.push(await startKernelProcess({ databaseUrl, args: args(dirs[1]!) }));
      const [first, second] = kernels as [KernelProcess, KernelProcess];
      expect(first.firstStart).toBe(true);
      expect(second.firstStart).toBe(false);
      expect(second.workspaceId).toBe(first.workspaceId);
      const ws = first.workspaceId;
      await seedOldRuns(databaseUrl, ws);

      // Both kernels see the policy on their next tick, a tenth of a second apart at most.
      const member = client(first.url, first.tokens.member);
      const put = await member.put(`/api/v1/workspaces/${ws}/retention`, {
        events_days: 90,
        runs_days: 90,
        audit_days: 90,
      });
      expect(put.status).toBe(200);

      const db = new pg.Client({ connectionString: databaseUrl });
      await db.connect();
      try {
        await waitFor(
          async () => {
            const left = await db.query<{ n: string }>(
              `select (select count(*) from runs where id like 'run_seed_%')
                  + (select count(*) from run_events where run_id like 'run_seed_%') as n`,
            );
            return Number(left.rows[0]!.n) === 0;
          },
          { timeoutMs: 120_000, what: 'every seeded row to be pruned' },
        );
      } finally {
        await db.end();
      }

      const lines = (kind: string) => dirs.flatMap((dir) => exportLines(dir, ws, kind));
      const runs = expectSeededRowsExportedOnce(lines);
      expect(runs.flatMap((line) => line.approvals as unknown[])).toHaveLength(RUNS);
    }, 240_000);

    it('exports each pruned row exactly once when a kernel is killed between an export and its delete', async ({
      onTestFinished,
    }) => {
      const kernels = kernelsOfCase(onTestFinished);
      const databaseUrl = await freshPostgresDatabase();
      const dir = mkdtempSync(join(root, 'killed-'));
      const args = [
        '--retention-interval',
        '100ms',
        '--retention-pace',
        '1',
        '--retention-export-dir',
        dir,
      ];
      const first = await startKernelProcess({ databaseUrl, args });
      const ws = first.workspaceId;
      await seedOldRuns(databaseUrl, ws);
      const db = new pg.Client({ connectionString: databaseUrl });
      await db.connect();
      try {
        // Every delete of an event fails until the trigger goes: each step exports, then cannot delete.
        await db.query(`create function refuse_deletes() returns trigger language plpgsql as $$
          begin raise exception 'the test refuses deletes'; end $$`);
        await db.query(`create trigger refuse_deletes before delete on run_events
          for each statement execute function refuse_deletes()`);
        const member = client(first.url, first.tokens.member);
        const put = await member.put(`/api/v1/workspaces/${ws}/retention`, {
          events_days: 90,
          runs_days: 90,
          audit_days: 90,
        });
        expect(put.status).toBe(200);
        await waitFor(
          async () => exportLines(dir, ws, 'events', { whileWriting: true }).length > 0,
          {
            what: 'a batch exported and not deleted',
          },
        );
        // kill -9: the export is on disk, its delete never committed.
        const exited = new Promise((resolve) => first.child.once('exit', resolve));
        process.kill(first.pid, 'SIGKILL');
        await exited;
        await db.query('drop trigger refuse_deletes on run_events');
        kernels.push(await startKernelProcess({ databaseUrl, args }));
        await waitFor(
          async () => {
            const left = await db.query<{ n: string }>(
              `select (select count(*) from runs where id like 'run_seed_%')
                  + (select count(*) from run_events where run_id like 'run_seed_%') as n`,
            );
            return Number(left.rows[0]!.n) === 0;
          },
          { timeoutMs: 120_000, what: 'every seeded row to be pruned' },
        );
      } finally {
        await db.end();
      }
      expectSeededRowsExportedOnce((kind) => exportLines(dir, ws, kind));
    }, 240_000);
  },
);

describe('retention on SQLite, a kernel killed between an export and its delete', {
  concurrent: true,
}, () => {
  it('exports each pruned row exactly once', async ({ onTestFinished }) => {
    const kernels = kernelsOfCase(onTestFinished);
    const dataDir = mkdtempSync(join(root, 'sqlite-'));
    const dir = join(dataDir, 'exports');
    const args = ['--retention-interval', '100ms', '--retention-pace', '1'];
    const first = await startKernelProcess({ dataDir, args });
    const { member } = first.tokens;
    const ws = first.workspaceId;
    await first.stop();
    const db = new SqliteDatabase(join(dataDir, 'airlock.sqlite'));
    try {
      seedOldSqliteRuns(db, ws);
      // Every delete of an event fails until the trigger goes: each step exports, then cannot delete.
      db.exec(`create trigger refuse_deletes before delete on run_events
        begin select raise(abort, 'the test refuses deletes'); end`);
      const second = await startKernelProcess({ dataDir, args });
      const put = await client(second.url, member).put(`/api/v1/workspaces/${ws}/retention`, {
        events_days: 90,
        runs_days: 90,
        audit_days: 90,
      });
      expect(put.status).toBe(200);
      await waitFor(async () => exportLines(dir, ws, 'events', { whileWriting: true }).length > 0, {
        what: 'a batch exported and not deleted',
      });
      // kill -9: the export is on disk, its delete never committed.
      const exited = new Promise((resolve) => second.child.once('exit', resolve));
      process.kill(second.pid, 'SIGKILL');
      await exited;
      db.exec('drop trigger refuse_deletes');
      kernels.push(await startKernelProcess({ dataDir, args }));
      await waitFor(
        async () => {
          const left = db
            .prepare(
              `select (select count(*) from runs where id like 'run_seed_%')
                 + (select count(*) from run_events where run_id like 'run_seed_%') as n`,
            )
            .get() as { n: number };
          return left.n === 0;
        },
        { timeoutMs: 120_000, what: 'every seeded row to be pruned' },
      );
    } finally {
      db.close();
    }
    expectSeededRowsExportedOnce((kind) => exportLines(dir, ws, kind));
  }, 240_000);
});
