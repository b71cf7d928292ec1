/**
 * Compares the kernel's CPU per park-then-approve round trip between this
 * build and another one (e.g. an older commit built elsewhere), on SQLite,
 * taking turns so that both see the same machine: round after round, each
 * build serves 16 concurrent clients for a few seconds in a fresh process.
 *
 *   pnpm --filter @airlock/server bench:compare -- --base /path/to/other/dist/cli.js [--rounds 4 --seconds 5]
 *
 * `--postgres` runs both on PostgreSQL (a fresh database each time, beside the one
 * AIRLOCK_BENCH_DATABASE_URL or AIRLOCK_TEST_DATABASE_URL names), one process each, and
 * prints PostgreSQL's own CPU per round trip too.
 *
 * `--node-args="..."` gives this build's processes Node options (to try a V8 flag against
 * the same build as `--base`).
 */
import { parseArgs } from 'node:util';
import { runBench, say, stage } from './progress.js';
import { keepBusy, parkThenApprove } from './round-trip.js';
import { freshDatabase, postgresCpuMs, processCpuMs, startServer } from './server-process.js';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((arg) => arg !== '--'),
  options: {
    base: { type: 'string' },
    rounds: { type: 'string', default: '4' },
    seconds: { type: 'string', default: '5' },
    'node-args': { type: 'string', default: '' },
    postgres: { type: 'boolean', default: false },
  },
});
if (!values.base) throw new Error('--base <path to the other build’s dist/cli.js> is required');
const pgUrl = process.env.AIRLOCK_BENCH_DATABASE_URL || process.env.AIRLOCK_TEST_DATABASE_URL;
if (values.postgres && !pgUrl) throw new Error('--postgres needs AIRLOCK_TEST_DATABASE_URL');

interface Sample {
  perSecond: number;
  cpuUs: number;
  /** PostgreSQL's CPU per round trip (0 on SQLite). */
  databaseUs: number;
}

async function sample(cli: string | undefined): Promise<Sample> {
  process.env.AIRLOCK_BENCH_NODE_ARGS = cli ? '' : values['node-args'];
  const databaseUrl = values.postgres ? await freshDatabase(pgUrl!) : null;
  const server = await startServer(databaseUrl, cli ? { cli } : {});
  try {
    const trip = () => parkThenApprove(server);
    await keepBusy(16, 1000, trip);
    const cpuStart = processCpuMs(server.child.pid);
    const databaseStart = values.postgres ? postgresCpuMs() : 0;
    const started = performance.now();
    const trips = await keepBusy(16, Number(values.seconds) * 1000, trip);
    const elapsed = (performance.now() - started) / 1000;
    const cpu = processCpuMs(server.child.pid) - cpuStart;
    const database = values.postgres ? postgresCpuMs() - databaseStart : 0;
    const perTrip = (ms: number) => (ms * 1000) / Math.max(1, trips);
    return { perSecond: trips / elapsed, cpuUs: perTrip(cpu), databaseUs: perTrip(database) };
  } finally {
    await server.cleanup();
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

async function main() {
  const base: Sample[] = [];
  const current: Sample[] = [];
  say(
    `${values.postgres ? 'PostgreSQL' : 'SQLite'}\n| round | build | round trips/s | server CPU per round trip |`,
  );
  say('| ---: | --- | ---: | ---: |');
  for (let round = 1; round <= Number(values.rounds); round += 1) {
    // Alternate which build goes first, so neither always follows the other.
    const order = round % 2 === 1 ? (['base', 'current'] as const) : (['current', 'base'] as const);
    for (const build of order) {
      stage(`round ${round} of ${values.rounds}: the ${build} build`);
      const s = await sample(build === 'base' ? values.base : undefined);
      (build === 'base' ? base : current).push(s);
      const database = values.postgres ? ` (PostgreSQL: ${s.databaseUs.toFixed(0)} µs)` : '';
      say(
        `| ${round} | ${build} | ${s.perSecond.toFixed(0)} | ${s.cpuUs.toFixed(0)} µs${database} |`,
      );
    }
  }
  const b = median(base.map((s) => s.cpuUs));
  const c = median(current.map((s) => s.cpuUs));
  say(
    `median CPU per round trip: base ${b.toFixed(0)} µs, current ${c.toFixed(0)} µs (${((c / b) * 100).toFixed(0)} % of base); ` +
      `median round trips/s: base ${median(base.map((s) => s.perSecond)).toFixed(0)}, current ${median(current.map((s) => s.perSecond)).toFixed(0)}`,
  );
}

runBench(main);
