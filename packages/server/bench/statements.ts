/**
 * Counts the SQL statements (and transactions, and on PostgreSQL the writes
 * to the server, i.e. round trips) each hot verb costs, on SQLite
 * and, when a URL is set, PostgreSQL: park (a run whose one call parks),
 * approve, claim and commit, a gateway's granted call (its submit, which
 * claims the row, and its commit) and a hooked session's (its check and its
 * report), through REST against an in-process kernel.
 *
 *   pnpm --filter @airlock/server bench:statements [-- --sql]
 *
 * With --sql, the statements of each verb's last call are printed too (on
 * PostgreSQL with a mark at each write to the server, after what it carried).
 *
 * PostgreSQL runs when AIRLOCK_BENCH_DATABASE_URL or AIRLOCK_TEST_DATABASE_URL is set.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { startAirlock } from '../src/airlock.js';
import { benchWorkspace } from './bench-workspace.js';
import { freshDatabase } from './server-process.js';

const showSql = process.argv.includes('--sql');
const counter = { statements: 0, transactions: 0, writes: 0, sql: [] as string[] };
const TRANSACTION_END = /^\s*(commit|rollback)\b/i;

function count(sql: string): void {
  counter.statements += 1;
  if (showSql) counter.sql.push(sql.replace(/\s+/g, ' ').trim());
  if (TRANSACTION_END.test(sql)) counter.transactions += 1;
}

/**
 * Counts the writes on sockets to a PostgreSQL port: statements sent together
 * (BEGIN with the first, the last ones with COMMIT) are one write and one round trip.
 */
function countWrites(port: number): void {
  const socket = Socket.prototype as unknown as Record<
    '_write' | '_writev',
    (...args: unknown[]) => unknown
  >;
  for (const method of ['_write', '_writev'] as const) {
    const original = socket[method]!;
    socket[method] = function (this: Socket, ...args: unknown[]) {
      if (this.remotePort === port) {
        counter.writes += 1;
        // With --sql, each write is marked where it goes out, after the statements it carries.
        if (showSql) counter.sql.push(`-- write ${counter.writes}`);
      }
      return original.apply(this, args);
    };
  }
}

/** Counts every statement better-sqlite3 runs and every query the pg driver sends. */
function instrument(): void {
  const probe = new SqliteDatabase(':memory:');
  const statementPrototype = Object.getPrototypeOf(probe.prepare('select 1')) as Record<
    string,
    (...args: unknown[]) => unknown
  >;
  probe.close();
  for (const method of ['run', 'get', 'all', 'iterate'] as const) {
    const original = statementPrototype[method]!;
    statementPrototype[method] = function (this: { source: string }, ...args: unknown[]) {
      count(this.source);
      return original.apply(this, args);
    };
  }
  const databasePrototype = SqliteDatabase.prototype as unknown as {
    exec(sql: string): unknown;
  };
  const exec = databasePrototype.exec;
  databasePrototype.exec = function (this: unknown, sql: string) {
    count(sql);
    return exec.call(this, sql);
  };
  const clientPrototype = pg.Client.prototype as unknown as {
    query(...args: unknown[]): unknown;
  };
  const query = clientPrototype.query;
  clientPrototype.query = function (this: unknown, ...args: unknown[]) {
    const first = args[0] as string | { text?: string };
    count(typeof first === 'string' ? first : (first?.text ?? ''));
    return query.apply(this, args);
  };
}

async function call(url: string, token: string, path: string, body: unknown) {
  const answer = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await answer.json()) as { id: string; claim?: { claim_id: string } | null };
  if (!answer.ok) throw new Error(`${path}: ${answer.status} ${JSON.stringify(json)}`);
  return json;
}

async function measure(location: { dataDir?: string; databaseUrl?: string }) {
  const airlock = await startAirlock({ ...location, sweepIntervalMs: 3_600_000, rateLimit: null });
  try {
    const { agent, executor, member, ws: prefix } = await benchWorkspace(airlock);
    const totals = new Map<
      string,
      { statements: number[]; transactions: number[]; writes: number[] }
    >();
    const lastSql = new Map<string, string[]>();
    const verb = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
      counter.statements = 0;
      counter.transactions = 0;
      counter.writes = 0;
      counter.sql = [];
      const value = await work();
      // The loop may go on after the answer (a commit that ends a run settles it in a second
      // unit of work): that work is this verb's, so it is counted before the next verb starts.
      await airlock.kernel.idle();
      lastSql.set(name, counter.sql);
      const entry = totals.get(name) ?? { statements: [], transactions: [], writes: [] };
      entry.statements.push(counter.statements);
      entry.transactions.push(counter.transactions);
      entry.writes.push(counter.writes);
      totals.set(name, entry);
      return value;
    };
    for (let i = 0; i < 12; i += 1) {
      const run = await verb('park (run create, its one call parks)', () =>
        call(airlock.url, agent, `${prefix}/runs`, {
          approval_mode: 'ask',
          input: 'bench',
          provider: {
            kind: 'scripted',
            rounds: [{ tool_calls: [{ name: 'deploy', input: { env: 'prod' } }] }, { final: 'ok' }],
          },
        }),
      );
      await verb('approve', () =>
        call(airlock.url, member, `${prefix}/runs/${run.id}/tasks/t1/approve`, {}),
      );
      const claimed = await verb('claim (next)', () =>
        call(airlock.url, executor, '/executor_api/v1/claim', {}),
      );
      const claim = claimed.claim;
      if (!claim) throw new Error('nothing to claim');
      await verb('commit (ends the run)', () =>
        call(airlock.url, executor, `/executor_api/v1/runs/${run.id}/tasks/t1/commit`, {
          claim_id: claim.claim_id,
          outcome: 'succeeded',
          result: 'done',
        }),
      );
    }
    // A gateway's granted call: its submit plants the row and claims it for the gateway, which
    // runs the call and commits what ran (the path of `airlock gateway mcp`).
    const gateway = await call(airlock.url, agent, `${prefix}/runs`, {
      approval_mode: 'rules',
      approval_rules: [{ tool: 'fs__read_*', verdict: 'allow' }],
      input: 'bench',
      provider: { kind: 'gateway', client: 'bench 1.0' },
    });
    for (let i = 0; i < 12; i += 1) {
      const submitted = (await verb('gateway call (granted, claimed in its submit)', () =>
        call(airlock.url, agent, `${prefix}/runs/${gateway.id}/calls`, {
          calls: [{ name: 'fs__read_text_file', input: { path: 'a.txt' }, id: `c${i}` }],
          claim: { lease_ms: 30_000 },
        }),
      )) as unknown as { tasks: { key: string }[]; claims: { claim_id: string }[] };
      const [task] = submitted.tasks;
      const [claim] = submitted.claims;
      if (!task || !claim) throw new Error('the gateway call was not granted and claimed');
      await verb('gateway commit (what ran)', () =>
        call(
          airlock.url,
          executor,
          `/executor_api/v1/runs/${gateway.id}/tasks/${task.key}/commit`,
          {
            claim_id: claim.claim_id,
            outcome: 'succeeded',
            result: 'text',
          },
        ),
      );
    }
    // A hooked session's granted call (a coding agent's hook or a framework adapter): the check
    // before the call, which plants and claims the row, and the report of what ran.
    const put = await fetch(`${airlock.url}/agent_api/v1/profile/configuration`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${agent}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        approval_mode: 'rules',
        approval_rules: [{ tool: 'lookup', verdict: 'allow' }],
      }),
    });
    if (!put.ok) throw new Error(`profile: ${put.status} ${await put.text()}`);
    const hookEvent = (event: Record<string, unknown>) =>
      call(airlock.url, agent, '/agent_api/v1/hooks/events', {
        agent: 'ai-sdk',
        session_id: 'bench-session',
        tool_name: 'lookup',
        ...event,
      });
    for (let i = 0; i < 12; i += 1) {
      const input = { q: i };
      await verb('hooked check (granted, claimed for the agent)', () =>
        hookEvent({ event: 'pre_tool', tool_input: input, tool_use_id: `h${i}` }),
      );
      await verb('hooked report (what ran)', () =>
        hookEvent({
          event: 'post_tool',
          tool_input: input,
          tool_use_id: `h${i}`,
          outcome: 'succeeded',
          output: 'found',
        }),
      );
    }
    if (showSql) {
      for (const [name, statements] of lastSql) {
        console.error(`-- ${location.databaseUrl ? 'postgres' : 'sqlite'}: ${name}`);
        for (const statement of statements) console.error(`   ${statement}`);
      }
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;
    return [...totals].map(([name, entry]) => ({
      name,
      statements: median(entry.statements.slice(2)),
      transactions: median(entry.transactions.slice(2)),
      writes: median(entry.writes.slice(2)),
    }));
  } finally {
    await airlock.close();
  }
}

async function main() {
  instrument();
  const pgUrl = process.env.AIRLOCK_BENCH_DATABASE_URL || process.env.AIRLOCK_TEST_DATABASE_URL;
  console.log('SQL statements per verb, authentication included (median of 10, after 2 warm-ups)');
  console.log('| store | verb | statements | transactions | writes to the server |');
  console.log('| --- | --- | ---: | ---: | ---: |');
  const dataDir = mkdtempSync(join(tmpdir(), 'airlock-statements-'));
  try {
    for (const r of await measure({ dataDir })) {
      console.log(`| sqlite | ${r.name} | ${r.statements} | ${r.transactions} | — |`);
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  if (pgUrl) {
    countWrites(Number(new URL(pgUrl).port || 5432));
    for (const r of await measure({ databaseUrl: await freshDatabase(pgUrl) })) {
      console.log(`| postgres | ${r.name} | ${r.statements} | ${r.transactions} | ${r.writes} |`);
    }
  } else
    console.log(
      '(PostgreSQL skipped: set AIRLOCK_BENCH_DATABASE_URL or AIRLOCK_TEST_DATABASE_URL)',
    );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
