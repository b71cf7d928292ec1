/**
 * Benchmark: park-then-approve round trips through REST against real
 * `airlock serve` processes, beside the floors its ingredients allow.
 *
 *   pnpm bench:server [-- --seconds 5 --concurrency 16 --backend sqlite|postgres --skip-feed]
 *
 * `--skip-feed` leaves out the cases with feed subscribers (the kernel and its floors only).
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
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { percentile, post } from './http-client.js';
import { parkThenApprove, type Target } from './round-trip.js';
import {
  freshDatabase,
  packageDir,
  postgresCpuMs,
  processCpuMs,
  type Server,
  startServer,
} from './server-process.js';
import { openSubscribers, type Subscribers } from './subscribers.js';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((arg) => arg !== '--'),
  options: {
    seconds: { type: 'string', default: '5' },
    concurrency: { type: 'string', default: '16' },
    backend: { type: 'string' },
    'skip-feed': { type: 'boolean', default: false },
  },
});
const seconds = Number(values.seconds);
const concurrency = Number(values.concurrency);

type Shape = 'model' | 'author';

async function roundTrip(target: Target, shape: Shape, authorRun: string): Promise<void> {
  if (shape === 'model') return parkThenApprove(target);
  const task = await post(target.url, target.member, `${target.ws}/runs/${authorRun}/tasks`, {
    tool_name: 'deploy',
    tool_input: { env: 'prod' },
  });
  if (task.state !== 'needs_approval') throw new Error(`expected a park, got ${task.state}`);
  await post(
    target.url,
    target.member,
    `${target.ws}/runs/${authorRun}/tasks/${task.key}/approve`,
    {},
  );
}

interface Result {
  perSecond: number;
  p50: number;
  p99: number;
  /** Server CPU per round trip, per process (over the round trips that process served), in µs. */
  cpuUs: number[];
  /** CPU per round trip of every PostgreSQL process on this machine, in µs (0 without one). */
  databaseCpuUs: number;
  /** Feed frames received per second by the subscribers, if any. */
  deliveredPerSecond: number | null;
}

async function measure(options: {
  targets: Target[];
  pids: (number | undefined)[];
  shape: Shape;
  subscribers?: Subscribers;
}): Promise<Result> {
  const { targets, shape } = options;
  const authorRun =
    shape === 'author'
      ? (
          await post(targets[0]!.url, targets[0]!.agent, `${targets[0]!.ws}/runs`, {
            approval_mode: 'bypass',
            approval_rules: [{ tool: 'deploy', verdict: 'ask', origin: 'author' }],
            input: 'bench',
            provider: {
              kind: 'scripted',
              rounds: [{ tool_calls: [{ name: 'hold' }] }, { final: 'x' }],
            },
          })
        ).id
      : '';
  const latencies: number[] = [];
  // Round trips each target served: a process's CPU is divided by its own share.
  const served = targets.map(() => 0);
  const runFor = async (ms: number, record: boolean) => {
    const end = performance.now() + ms;
    await Promise.all(
      Array.from({ length: concurrency }, async (_, client) => {
        const index = client % targets.length;
        const target = targets[index]!;
        while (performance.now() < end) {
          const start = performance.now();
          await roundTrip(target, shape, authorRun);
          if (record) {
            latencies.push(performance.now() - start);
            served[index]! += 1;
          }
        }
      }),
    );
  };
  await runFor(1000, false);
  const cpuStart = options.pids.map(processCpuMs);
  const databaseStart = postgresCpuMs();
  const receivedStart = options.subscribers?.received() ?? 0;
  const started = performance.now();
  await runFor(seconds * 1000, true);
  const elapsed = (performance.now() - started) / 1000;
  const received = (options.subscribers?.received() ?? 0) - receivedStart;
  const cpuEnd = options.pids.map(processCpuMs);
  const databaseEnd = postgresCpuMs();
  latencies.sort((a, b) => a - b);
  const trips = Math.max(1, latencies.length);
  return {
    perSecond: latencies.length / elapsed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    cpuUs: cpuEnd.map((end, i) => ((end - cpuStart[i]!) * 1000) / Math.max(1, served[i]!)),
    databaseCpuUs: ((databaseEnd - databaseStart) * 1000) / trips,
    deliveredPerSecond: options.subscribers ? received / elapsed : null,
  };
}

/** Starts a floor server (bench/floor-server.ts) and returns its URL. */
async function startFloor(mode: 'http' | 'frames'): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    [...process.execArgv, join(packageDir, 'bench/floor-server.ts'), mode],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const port = await new Promise<string>((resolve, reject) => {
    let text = '';
    child.stdout!.on('data', (chunk) => {
      text += chunk;
      const found = /listening (\d+)/.exec(text);
      if (found) resolve(found[1]!);
    });
    child.once('exit', (code) => reject(new Error(`floor ${mode} exited ${code}`)));
  });
  return { child, url: `http://127.0.0.1:${port}` };
}

async function stop(child: ChildProcess): Promise<void> {
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
}

/** Frames per second the bare ws floor delivers to `count` sockets. */
async function framesFloor(count: number): Promise<number> {
  const floor = await startFloor('frames');
  try {
    const subscribers = await openSubscribers({
      url: floor.url,
      workspaceId: 'floor',
      token: 'floor',
      count,
      kind: 'all',
    });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const start = subscribers.received();
    const started = performance.now();
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    const rate = (subscribers.received() - start) / ((performance.now() - started) / 1000);
    await subscribers.close();
    return rate;
  } finally {
    await stop(floor.child);
  }
}

function row(cells: (string | number)[]): void {
  console.log(`| ${cells.join(' | ')} |`);
}

const fmt = (n: number) => n.toFixed(0);
const ms = (n: number) => n.toFixed(2);
const cpu = (r: Result) => r.cpuUs.map((us) => `${fmt(us)} µs`).join(' + ');
/** Kernel CPU per round trip, and PostgreSQL's beside it. */
const cpuWithDatabase = (r: Result) => `${cpu(r)} (PostgreSQL: ${fmt(r.databaseCpuUs)} µs)`;

async function sqliteCases(): Promise<void> {
  const http = await startFloor('http');
  let floor: Result;
  try {
    const target = { url: http.url, ws: '/api/v1/workspaces/floor', agent: 'x', member: 'x' };
    floor = await measure({ targets: [target], pids: [http.child.pid], shape: 'model' });
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
  const all: { shape: Shape; kind?: 'all' | 'quiet'; count: number }[] = [
    { shape: 'model', count: 0 },
    { shape: 'author', count: 0 },
    { shape: 'model', kind: 'quiet', count: 100 },
    { shape: 'model', kind: 'quiet', count: 1000 },
    { shape: 'model', kind: 'all', count: 100 },
    { shape: 'model', kind: 'all', count: 1000 },
  ];
  const cases = all.filter((c) => !(values['skip-feed'] && c.kind));
  for (const c of cases) {
    const server = await startServer(null);
    try {
      const subscribers = await subscribersOf(server, c);
      const r = await measure({
        targets: [server],
        pids: [server.child.pid],
        shape: c.shape,
        subscribers,
      });
      await subscribers?.close();
      if (c.shape === 'model' && c.count === 0) baseline = r.perSecond;
      const subs = c.kind ? `${c.count} ${c.kind}` : '0';
      const versus =
        c.shape === 'model' && c.count > 0
          ? `${(r.perSecond / floor.perSecond).toFixed(2)} (${(r.perSecond / baseline).toFixed(2)} of 0 subscribers)`
          : (r.perSecond / floor.perSecond).toFixed(2);
      const label =
        c.shape === 'model'
          ? 'run create (model row parks) + approve'
          : 'author row parks + approve';
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
        const frames = await framesFloor(c.count);
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
}

/**
 * PostgreSQL with one kernel process and with two on the same database,
 * each with no feed subscribers and then with subscribers of both kinds (on
 * the first process: with two, half the events reach them from the other
 * process, through LISTEN/NOTIFY); and then one process again beside
 * processes that only burn CPU, one per core. On a machine whose cores are
 * all busy, a second kernel process halves each process's rate, and a
 * process's CPU per round trip grows as its rate falls (fewer requests share
 * each wake-up of its event loop). The last row holds one process to about
 * that rate without a second kernel, so the two can be compared at the same
 * rate per process.
 */
async function postgresCases(pgUrl: string): Promise<void> {
  const feedCases: { kind?: 'all' | 'quiet'; count: number }[] = [
    { count: 0 },
    { kind: 'quiet', count: 100 },
    { kind: 'quiet', count: 1000 },
    { kind: 'all', count: 100 },
  ];
  type PostgresCase = { processes: 1 | 2 | 'neighbour'; kind?: 'all' | 'quiet'; count: number };
  const all: PostgresCase[] = [
    ...feedCases.map((c): PostgresCase => ({ processes: 1, ...c })),
    ...feedCases.map((c): PostgresCase => ({ processes: 2, ...c })),
    { processes: 'neighbour', count: 0 },
  ];
  const cases = all.filter((c) => !(values['skip-feed'] && c.kind));
  /** Round trips/s with no subscribers, by number of processes (the case each other row is set against). */
  const withoutSubscribers = new Map<PostgresCase['processes'], number>();
  for (const c of cases) {
    const databaseUrl = await freshDatabase(pgUrl);
    const first = await startServer(databaseUrl);
    const servers: Server[] = [first];
    const neighbours = c.processes === 'neighbour' ? cpus().map(() => burnCpu()) : [];
    try {
      if (c.processes === 2) servers.push(await startServer(databaseUrl, { joining: first }));
      const subscribers = await subscribersOf(first, c);
      const r = await measure({
        targets: servers,
        pids: servers.map((server) => server.child.pid),
        shape: 'model',
        subscribers,
      });
      await subscribers?.close();
      if (c.count === 0) withoutSubscribers.set(c.processes, r.perSecond);
      const one = withoutSubscribers.get(1) ?? r.perSecond;
      let versus = c.processes === 1 ? '1.00' : `${(r.perSecond / one).toFixed(2)} of one process`;
      if (c.kind) {
        const base = withoutSubscribers.get(c.processes) ?? r.perSecond;
        versus = `${(r.perSecond / base).toFixed(2)} of 0 subscribers`;
      }
      row([
        'postgres',
        c.processes === 'neighbour'
          ? `run create + approve, 1 process beside ${cpus().length} CPU-bound processes`
          : `run create + approve, ${c.processes} process(es)`,
        c.kind ? `${c.count} ${c.kind}` : '0',
        fmt(r.perSecond),
        versus,
        ms(r.p50),
        ms(r.p99),
        cpuWithDatabase(r),
        r.deliveredPerSecond === null ? '—' : `${fmt(r.deliveredPerSecond)}/s`,
      ]);
    } finally {
      for (const neighbour of neighbours) neighbour.kill();
      for (const server of servers.reverse()) await server.cleanup();
    }
  }
}

/** A case's feed subscribers on a server's workspace, or none. */
function subscribersOf(
  server: Server,
  c: { kind?: 'all' | 'quiet'; count: number },
): Promise<Subscribers | undefined> {
  if (!c.kind) return Promise.resolve(undefined);
  return openSubscribers({
    url: server.url,
    workspaceId: server.workspaceId,
    token: server.member,
    count: c.count,
    kind: c.kind,
  });
}

/** A process that keeps one core busy until killed (or for five minutes at most). */
function burnCpu(): ChildProcess {
  return spawn(
    process.execPath,
    ['-e', 'const end = Date.now() + 300000; while (Date.now() < end);'],
    {
      stdio: 'ignore',
    },
  );
}

async function main() {
  execFileSync(join(packageDir, '../../node_modules/.bin/tsc'), ['-b', packageDir], {
    stdio: 'inherit',
  });
  const pgUrl = process.env.AIRLOCK_BENCH_DATABASE_URL || process.env.AIRLOCK_TEST_DATABASE_URL;
  console.log(
    `park-then-approve round trips over REST: ${concurrency} concurrent clients, ${seconds}s per case, ` +
      `${cpus().length} CPUs, Node ${process.version}`,
  );
  if (!pgUrl)
    console.log(
      '(PostgreSQL skipped: set AIRLOCK_BENCH_DATABASE_URL or AIRLOCK_TEST_DATABASE_URL)',
    );
  console.log(
    '| store | round trip | feed subscribers | round trips/s | vs HTTP floor | p50 ms | p99 ms | server CPU per round trip | feed frames delivered |',
  );
  console.log('| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |');
  if (values.backend !== 'postgres') await sqliteCases();
  if (pgUrl && values.backend !== 'sqlite') await postgresCases(pgUrl);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
