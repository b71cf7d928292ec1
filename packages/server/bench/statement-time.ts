/**
 * Times every SQLite statement the kernel runs under the park-then-approve
 * load (16 concurrent clients over loopback HTTP against an in-process
 * kernel), and prints the time per round trip by statement: the store's share
 * of a round trip's CPU, which no change above the store can remove.
 *
 *   pnpm --filter @airlock/server bench:statement-time [-- --seconds 4]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import SqliteDatabase from 'better-sqlite3';
import { startAirlock } from '../src/airlock.js';
import { benchWorkspace } from './bench-workspace.js';
import { keepBusy, parkThenApprove } from './round-trip.js';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((arg) => arg !== '--'),
  options: { seconds: { type: 'string', default: '4' } },
});
const times = new Map<string, { count: number; ns: bigint }>();

function record(sql: string, started: bigint): void {
  const key = sql.replace(/\s+/g, ' ').slice(0, 80);
  const entry = times.get(key) ?? { count: 0, ns: 0n };
  entry.count += 1;
  entry.ns += process.hrtime.bigint() - started;
  times.set(key, entry);
}

/** Wraps better-sqlite3's statement and exec methods with a timer. */
function instrument(): void {
  const probe = new SqliteDatabase(':memory:');
  const statement = Object.getPrototypeOf(probe.prepare('select 1')) as Record<
    string,
    (...args: unknown[]) => unknown
  >;
  probe.close();
  for (const method of ['run', 'get', 'all'] as const) {
    const original = statement[method]!;
    statement[method] = function (this: { source: string }, ...args: unknown[]) {
      const started = process.hrtime.bigint();
      try {
        return original.apply(this, args);
      } finally {
        record(this.source, started);
      }
    };
  }
  const database = SqliteDatabase.prototype as unknown as { exec(sql: string): unknown };
  const exec = database.exec;
  database.exec = function (this: unknown, sql: string) {
    const started = process.hrtime.bigint();
    try {
      return exec.call(this, sql);
    } finally {
      record(sql, started);
    }
  };
}

async function main() {
  instrument();
  const dataDir = mkdtempSync(join(tmpdir(), 'airlock-statement-time-'));
  const airlock = await startAirlock({ dataDir, sweepIntervalMs: 3_600_000, rateLimit: null });
  try {
    const target = await benchWorkspace(airlock);
    const trip = () => parkThenApprove(target);
    await keepBusy(16, 1000, trip);
    times.clear();
    const trips = await keepBusy(16, Number(values.seconds) * 1000, trip);
    let total = 0n;
    for (const entry of times.values()) total += entry.ns;
    const perTrip = (ns: bigint) => (Number(ns) / trips / 1000).toFixed(1);
    console.log(
      `${trips} park-then-approve round trips; SQLite time per round trip: ${perTrip(total)} µs`,
    );
    console.log('| µs per round trip | runs per round trip | statement |');
    console.log('| ---: | ---: | --- |');
    for (const [sql, entry] of [...times].sort((a, b) => Number(b[1].ns - a[1].ns))) {
      console.log(`| ${perTrip(entry.ns)} | ${(entry.count / trips).toFixed(2)} | \`${sql}\` |`);
    }
  } finally {
    await airlock.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
