/**
 * Times every SQLite statement the kernel runs under the park-then-approve
 * load (16 concurrent clients over loopback HTTP against an in-process
 * kernel), and prints the time per round trip by statement: the store's share
 * of a round trip's CPU, which no change above the store can remove.
 *
 *   pnpm --filter @airlock/server bench:statement-time [-- --seconds 4]
 *     [--long-lived-events 2000000 --long-lived-runs 200000 [--after-pruning]]
 *
 * With --long-lived-events and --long-lived-runs the workspace is first
 * seeded with that many events of that many ended runs, 100 to 200 days old
 * (as bench:server's long-lived case); with --after-pruning too, the kernel
 * prunes them all (events and runs 90 days, audit 365) before the timing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import SqliteDatabase from 'better-sqlite3';
import { startAirlock } from '../src/airlock.js';
import { writeRetentionPolicy } from '../src/store/retention.js';
import { benchWorkspace } from './bench-workspace.js';
import { seedLongLived } from './long-lived-seed.js';
import { keepBusy, parkThenApprove } from './round-trip.js';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((arg) => arg !== '--'),
  options: {
    seconds: { type: 'string', default: '4' },
    'long-lived-events': { type: 'string', default: '0' },
    'long-lived-runs': { type: 'string', default: '0' },
    'after-pruning': { type: 'boolean', default: false },
  },
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
  const longLived = Number(values['long-lived-runs']) > 0;
  // A long-lived store keeps the kernel's sweep (250 ms) and prunes every second, as `airlock serve` would.
  const options = {
    dataDir,
    rateLimit: null,
    ...(longLived ? { retention: { intervalMs: 1000 } } : { sweepIntervalMs: 3_600_000 }),
  };
  let airlock = await startAirlock(options);
  try {
    const target = await benchWorkspace(airlock);
    const runs = Number(values['long-lived-runs']);
    if (longLived) {
      const workspaceId = target.ws.split('/').pop()!;
      await airlock.close();
      const events = Number(values['long-lived-events']);
      const seeded = seedLongLived({
        dataDir,
        workspaceId,
        events,
        runs,
        oldestDays: 200,
        newestDays: 100,
      });
      console.log(`seeded ${events} events of ${runs} runs in ${seeded.seconds.toFixed(0)} s`);
      airlock = await startAirlock(options);
      target.url = airlock.url;
      if (values['after-pruning']) {
        const started = Date.now();
        await airlock.store.transaction((tx) =>
          writeRetentionPolicy(tx, {
            workspaceId,
            principal: 'bench',
            events_days: 90,
            runs_days: 90,
            audit_days: 365,
          }),
        );
        for (;;) {
          const report = await airlock.kernel.pruner!.pruneNow();
          if (report.events + report.runs + report.audit === 0) break;
        }
        console.log(`pruned in ${((Date.now() - started) / 1000).toFixed(0)} s`);
      }
    }
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
