/**
 * What a bound `LIMIT ?` costs a SQLite statement against the same limit
 * written into its text, with the better-sqlite3 the kernel uses (its SQLite
 * is built with SQLITE_ENABLE_STAT4, which prepares a statement again when a
 * bound value may change its plan; a LIMIT's value is one). The table is
 * the kernel's own `tasks` (its columns and indexes, from a store the kernel
 * migrated) with 2,000 rows of one run, looked up by call id as every hooked
 * call's check and report does (store/hooked-rows.ts, store/row-limit.ts).
 *
 *   pnpm --filter @airlock/server bench:bound-limit [-- --runs 20000]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import SqliteDatabase from 'better-sqlite3';
import { Store } from '../src/store/store.js';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((arg) => arg !== '--'),
  options: { runs: { type: 'string', default: '20000' } },
});
const RUNS = Number(values.runs);
const ROWS = 2000;

const dataDir = mkdtempSync(join(tmpdir(), 'airlock-bench-limit-'));
try {
  // The kernel's schema, as its migrations leave it.
  const store = await Store.open({ dataDir });
  await store.close();
  const db = new SqliteDatabase(join(dataDir, 'airlock.sqlite'));
  db.pragma('foreign_keys = OFF');
  const insert = db.prepare(
    `insert into tasks (workspace_id, run_id, key, round, origin, kind, state, tool_call_id,
       tool_name, tool_input, on_failure, created_at, updated_at, attempts)
     values ('ws_1', 'run_1', ?, ?, 'model', 'tool', 'completed', ?, 'Bash',
       '{"command":"ls -la"}', 'report', ?, ?, 1)`,
  );
  db.transaction(() => {
    for (let i = 0; i < ROWS; i += 1) insert.run(`t${i}`, i, `call_${i}`, i, i);
  })();
  const lookup = (limit: string) =>
    `select * from tasks where run_id = ? and tool_call_id = ? and origin = 'model' order by created_at desc limit ${limit}`;
  const variants: [string, SqliteDatabase.Statement, (i: number) => unknown[]][] = [
    ['limit 1 (in the text)', db.prepare(lookup('1')), (i) => ['run_1', `call_${i % ROWS}`]],
    ['limit ? (bound to 1)', db.prepare(lookup('?')), (i) => ['run_1', `call_${i % ROWS}`, 1]],
  ];
  const times = new Map<string, number[]>();
  // Rounds taking turns, so the machine's load of the moment falls on both alike.
  for (let round = 0; round < 5; round += 1) {
    for (const [name, statement, args] of variants) {
      const started = performance.now();
      for (let i = 0; i < RUNS; i += 1) statement.all(args(i));
      const perRun = ((performance.now() - started) / RUNS) * 1000;
      if (round > 0) times.set(name, [...(times.get(name) ?? []), perRun]);
    }
  }
  const median = (list: number[]) => [...list].sort((a, b) => a - b)[list.length >> 1]!;
  const [inText, bound] = variants.map(([name]) => median(times.get(name)!));
  const version = (db.prepare('select sqlite_version() as v').get() as { v: string }).v;
  const stat4 = db
    .prepare('pragma compile_options')
    .all()
    .some((row) => (row as { compile_options: string }).compile_options === 'ENABLE_STAT4');
  console.log(
    `SQLite ${version}${stat4 ? ' (ENABLE_STAT4)' : ''}, a task row by call id among ${ROWS}, ${RUNS} lookups per round, median of 4 rounds`,
  );
  console.log(`limit 1 (in the text)   ${inText!.toFixed(1)} µs per lookup`);
  console.log(
    `limit ? (bound to 1)    ${bound!.toFixed(1)} µs per lookup (${(bound! / inText!).toFixed(2)}x)`,
  );
  db.close();
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
