/**
 * Benchmark: park-then-approve round trips through REST against real
 * `airlock serve` processes, beside the floors its ingredients allow.
 *
 *   pnpm bench:server [-- --seconds 5 --concurrency 16 --backend sqlite|postgres --skip-feed]
 *                     [--long-lived-events N --long-lived-runs M | --long-lived none]
 *
 * The long-lived case (SQLite) seeds a store with N events of M ended runs by bulk insert
 * (default 2,000,000 of 200,000; the 10,000,000 of 1,000,000 with the flags) and
 * measures park-and-approve against it, while it is pruned, and after, beside an empty store.
 * `--skip-feed` leaves out the cases with feed subscribers (the kernel and its floors only).
 * After the feed cases, one kernel is measured with no subscriber and with one of every event
 * in alternating rounds (what an open inbox costs at full load, without the drift between cases).
 * Every case runs the default `--durability full` (an fsync per group commit) except the one
 * beside the first, which runs `--durability relaxed`: the cost of power-loss safety, same run;
 * on PostgreSQL likewise (`synchronous_commit` on, then off, one kernel process).
 * Metrics are on in every case (the default of `airlock serve`) but the third: the model round
 * trip again with `--no-metrics`, whose row shows its rate beside the metrics-on one.
 * `--paced 150,300` sets the rates each PostgreSQL process is offered in the paced cases
 * (one process, then two, at the same rate per process); `--paced none` leaves them out.
 *
 * PostgreSQL runs when AIRLOCK_BENCH_DATABASE_URL or AIRLOCK_TEST_DATABASE_URL is set.
 * Round-trip shapes:
 *   model   POST /runs (a scripted run whose one call parks) then POST .../approve
 *   author  POST .../tasks (an author row an `ask` rule parks) then POST .../approve
 * Floors, measured in the same run: a bare node:http server answering the same two
 * POSTs (no store), and a bare ws server writing pre-serialized frames to the same
 * number of sockets. Feed subscribers: `quiet` follow a run that never changes,
 * `all` follow the whole workspace.
 */
import { execFileSync } from 'node:child_process';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { framesFloor, startFloor, stop } from './floors.js';
import { longLivedCase } from './long-lived.js';
import { cpu, fmt, measure, ms, type Result, row, type Shape } from './measure.js';
import { postgresCases } from './postgres-cases.js';
import { runBench, say } from './progress.js';
import { packageDir, startServer } from './server-process.js';
import { oneSubscriberAlternating } from './subscriber-cost.js';
import { subscribersOf } from './subscribers.js';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((arg) => arg !== '--'),
  options: {
    seconds: { type: 'string', default: '5' },
    concurrency: { type: 'string', default: '16' },
    backend: { type: 'string' },
    'skip-feed': { type: 'boolean', default: false },
    paced: { type: 'string', default: '150,300' },
    'long-lived': { type: 'string' },
    'long-lived-events': { type: 'string', default: '2000000' },
    'long-lived-runs': { type: 'string', default: '200000' },
  },
});
const seconds = Number(values.seconds);
const concurrency = Number(values.concurrency);
const pacedRates =
  values.paced === 'none'
    ? []
    : values.paced
        .split(',')
        .map(Number)
        .filter((n) => n > 0);

async function sqliteCases(): Promise<void> {
  const http = await startFloor('http');
  let floor: Result;
  try {
    const target = { url: http.url, ws: '/api/v1/workspaces/floor', agent: 'x', member: 'x' };
    floor = await measure({
      targets: [target],
      pids: [http.child.pid],
      shape: 'model',
      seconds,
      concurrency,
    });
  } finally {
    await stop(http.child);
  }
  row([
    'sqlite',
    'floor: bare node:http, same two POSTs',
    '—',
    fmt(floor.perSecond),
    '1.00',
    ms(floor.p50),
    ms(floor.p99),
    cpu(floor),
    '—',
  ]);
  let baseline = 0;
  const all: {
    shape: Shape;
    kind?: 'all' | 'quiet';
    count: number;
    durability?: 'relaxed';
    metricsOff?: boolean;
  }[] = [
    { shape: 'model', count: 0 },
    // Side by side with the case above: the same round trips without an fsync per group commit.
    { shape: 'model', count: 0, durability: 'relaxed' },
    // And without recording metrics: what recording them costs, in the same run.
    { shape: 'model', count: 0, metricsOff: true },
    { shape: 'author', count: 0 },
    // One subscriber that receives every event of the workspace: what one open web inbox (or
    // any one workspace feed) costs the kernel's throughput.
    { shape: 'model', kind: 'all', count: 1 },
    { shape: 'model', kind: 'quiet', count: 100 },
    { shape: 'model', kind: 'quiet', count: 1000 },
    { shape: 'model', kind: 'all', count: 100 },
    { shape: 'model', kind: 'all', count: 1000 },
  ];
  const cases = all.filter((c) => !(values['skip-feed'] && c.kind));
  for (const c of cases) {
    const server = await startServer(null, {
      args: [
        ...(c.durability ? ['--durability', c.durability] : []),
        ...(c.metricsOff ? ['--no-metrics'] : []),
      ],
    });
    try {
      const subscribers = await subscribersOf(server, c);
      const r = await measure({
        targets: [server],
        pids: [server.child.pid],
        shape: c.shape,
        subscribers,
        seconds,
        concurrency,
      });
      await subscribers?.close();
      if (c.shape === 'model' && c.count === 0 && !c.durability && !c.metricsOff) {
        baseline = r.perSecond;
      }
      const subs = c.kind ? `${c.count} ${c.kind}` : '0';
      const versus = c.durability
        ? `${(r.perSecond / floor.perSecond).toFixed(2)} (${(r.perSecond / baseline).toFixed(2)} of full)`
        : c.metricsOff
          ? `${(r.perSecond / floor.perSecond).toFixed(2)} (${(r.perSecond / baseline).toFixed(2)} of metrics on)`
          : c.shape === 'model' && c.count > 0
            ? `${(r.perSecond / floor.perSecond).toFixed(2)} (${(r.perSecond / baseline).toFixed(2)} of 0 subscribers)`
            : (r.perSecond / floor.perSecond).toFixed(2);
      const durability = c.durability ? 'relaxed' : 'full';
      const label = `${
        c.shape === 'model'
          ? 'run create (model row parks) + approve'
          : 'author row parks + approve'
      }, durability ${durability}${c.metricsOff ? ', metrics off (--no-metrics)' : ''}`;
      const delivered = r.deliveredPerSecond === null ? '—' : `${fmt(r.deliveredPerSecond)}/s`;
      row([
        'sqlite',
        label,
        subs,
        fmt(r.perSecond),
        versus,
        ms(r.p50),
        ms(r.p99),
        cpu(r),
        delivered,
      ]);
      if (c.kind === 'all' && r.deliveredPerSecond !== null) {
        const frames = await framesFloor(c.count, seconds);
        row([
          '—',
          `floor: bare ws, pre-serialized frames to ${c.count} sockets`,
          `${c.count} all`,
          '—',
          '—',
          '—',
          '—',
          '—',
          `${fmt(frames)}/s (kernel ${(r.deliveredPerSecond / frames).toFixed(2)} of it)`,
        ]);
      }
    } finally {
      await server.cleanup();
    }
  }
  if (!values['skip-feed']) await oneSubscriberAlternating({ seconds, concurrency });
}

async function main() {
  execFileSync(join(packageDir, '../../node_modules/.bin/tsc'), ['-b', packageDir], {
    stdio: 'inherit',
  });
  const pgUrl = process.env.AIRLOCK_BENCH_DATABASE_URL || process.env.AIRLOCK_TEST_DATABASE_URL;
  say(
    `park-then-approve round trips over REST: ${concurrency} concurrent clients, ${seconds}s per case, ` +
      `${cpus().length} CPUs, Node ${process.version}`,
  );
  if (!pgUrl)
    say('(PostgreSQL skipped: set AIRLOCK_BENCH_DATABASE_URL or AIRLOCK_TEST_DATABASE_URL)');
  say(
    '| store | round trip | feed subscribers | round trips/s | vs HTTP floor | p50 ms | p99 ms | server CPU per round trip | feed frames delivered |',
  );
  say('| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |');
  if (values.backend !== 'postgres') await sqliteCases();
  if (values.backend !== 'postgres' && values['long-lived'] !== 'none') {
    await longLivedCase({
      events: Number(values['long-lived-events']),
      runs: Number(values['long-lived-runs']),
      seconds,
      concurrency,
    });
  }
  if (pgUrl && values.backend !== 'sqlite')
    await postgresCases(pgUrl, {
      seconds,
      concurrency,
      skipFeed: values['skip-feed'],
      pacedRates,
    });
}

runBench(main);
