import { type ChildProcess, spawn } from 'node:child_process';
import { cpus } from 'node:os';
import { cpuWithDatabase, fmt, measure, ms, type Result, row } from './measure.js';
import { freshDatabase, type Server, startServer } from './server-process.js';
import { subscribersOf } from './subscribers.js';

export interface PostgresOptions {
  seconds: number;
  concurrency: number;
  skipFeed: boolean;
  /** Round trips/s offered to each process in the paced cases (none: no paced cases). */
  pacedRates: number[];
}

/**
 * A case: how many kernel processes share the database (`neighbour`: one
 * beside processes that only burn CPU, one per core), the feed subscribers
 * on the first process, and for a paced case the rate offered to each process.
 */
interface PostgresCase {
  processes: 1 | 2 | 'neighbour';
  /** `relaxed`: `--durability relaxed` (`synchronous_commit = off`); default `full`. */
  durability?: 'relaxed';
  kind?: 'all' | 'quiet';
  count: number;
  ratePerProcess?: number;
}

/**
 * PostgreSQL with one kernel process (durability full, then relaxed: the
 * cost of waiting for the WAL flush, same run) and with two on the same
 * database, each with no feed subscribers and then with subscribers of both kinds (on
 * the first process: with two, half the events reach them from the other
 * process, through LISTEN/NOTIFY); then one process beside CPU-bound
 * processes; then paced cases.
 *
 * On a machine whose cores are all busy, a second kernel process halves
 * each process's rate, and a process's CPU per round trip grows as its rate
 * falls (fewer requests share each wake-up of its event loop). The
 * neighbour case holds one process to about that rate without a second
 * kernel. The paced cases go further: each process is offered the same
 * fixed rate, one process alone and then two on the same database, so the
 * CPU each spends per round trip (and PostgreSQL's) can be set side by side
 * at the same rate per process. If a second process made each round trip
 * dearer (row locks, NOTIFY, reading the other's events), it would show
 * there; if it does not, two processes add up wherever each has a CPU.
 */
export async function postgresCases(pgUrl: string, options: PostgresOptions): Promise<void> {
  const feedCases: { kind?: 'all' | 'quiet'; count: number }[] = [
    { count: 0 },
    { kind: 'quiet', count: 100 },
    { kind: 'quiet', count: 1000 },
    { kind: 'all', count: 100 },
  ];
  const all: PostgresCase[] = [
    { processes: 1, count: 0 },
    // Beside the case above: the same round trips with COMMIT not waiting for the WAL flush.
    { processes: 1, count: 0, durability: 'relaxed' },
    ...feedCases.slice(1).map((c): PostgresCase => ({ processes: 1, ...c })),
    ...feedCases.map((c): PostgresCase => ({ processes: 2, ...c })),
    { processes: 'neighbour', count: 0 },
    // One process at each rate and at twice it (the total two processes are offered), then two.
    ...[...new Set(options.pacedRates.flatMap((rate) => [rate, 2 * rate]))]
      .sort((a, b) => a - b)
      .map((rate): PostgresCase => ({ processes: 1, count: 0, ratePerProcess: rate })),
    ...options.pacedRates.map(
      (rate): PostgresCase => ({ processes: 2, count: 0, ratePerProcess: rate }),
    ),
  ];
  const cases = all.filter((c) => !(options.skipFeed && c.kind));
  /** Round trips/s with no subscribers, by number of processes (the case each other row is set against). */
  const withoutSubscribers = new Map<PostgresCase['processes'], number>();
  /** The one-process paced results by rate, which the two-process ones are set against. */
  const pacedAlone = new Map<number, Result>();
  for (const c of cases) {
    const r = await runCase(pgUrl, c, options);
    let versus: string;
    if (c.ratePerProcess) {
      const rate = c.ratePerProcess;
      if (c.processes === 1) pacedAlone.set(rate, r);
      versus =
        c.processes === 1 ? '—' : cpuVersus(r, pacedAlone.get(rate), pacedAlone.get(2 * rate));
    } else if (c.durability) {
      const full = withoutSubscribers.get(c.processes) ?? r.perSecond;
      versus = `${(r.perSecond / full).toFixed(2)} of full`;
    } else {
      if (c.count === 0) withoutSubscribers.set(c.processes, r.perSecond);
      const one = withoutSubscribers.get(1) ?? r.perSecond;
      versus = c.processes === 1 ? '1.00' : `${(r.perSecond / one).toFixed(2)} of one process`;
      if (c.kind) {
        const base = withoutSubscribers.get(c.processes) ?? r.perSecond;
        versus = `${(r.perSecond / base).toFixed(2)} of 0 subscribers`;
      }
    }
    row([
      'postgres',
      label(c),
      c.kind ? `${c.count} ${c.kind}` : '0',
      fmt(r.perSecond),
      versus,
      ms(r.p50),
      ms(r.p99),
      cpuWithDatabase(r),
      r.deliveredPerSecond === null ? '—' : `${fmt(r.deliveredPerSecond)}/s`,
    ]);
  }
}

function label(c: PostgresCase): string {
  if (c.processes === 'neighbour') {
    return `run create + approve, 1 process beside ${cpus().length} CPU-bound processes`;
  }
  const processes = c.processes === 1 ? '1 process' : '2 processes';
  if (c.durability) {
    return `run create + approve, ${processes}, durability ${c.durability} (synchronous_commit off)`;
  }
  if (c.ratePerProcess) {
    return `run create + approve, ${processes}, each offered ${c.ratePerProcess}/s`;
  }
  return `run create + approve, ${processes}`;
}

/**
 * A paced two-process result set against one process alone: each kernel
 * process's CPU per round trip against the lone process's at the same rate
 * per process, and PostgreSQL's against the lone process's at the same
 * total rate (twice the rate), which is the load the database sees.
 */
function cpuVersus(two: Result, sameRate?: Result, sameTotal?: Result): string {
  const parts: string[] = [];
  if (sameRate) {
    const kernels = two.cpuUs.map((us) => (us / sameRate.cpuUs[0]!).toFixed(2)).join(' and ');
    parts.push(`kernel CPU per round trip ${kernels} of one process's at the same rate`);
  }
  if (sameTotal) {
    const database = (two.databaseCpuUs / sameTotal.databaseCpuUs).toFixed(2);
    parts.push(`PostgreSQL's ${database} of its own at the same total rate`);
  }
  return parts.join('; ') || '—';
}

async function runCase(pgUrl: string, c: PostgresCase, options: PostgresOptions) {
  const databaseUrl = await freshDatabase(pgUrl);
  const first = await startServer(databaseUrl, {
    args: c.durability ? ['--durability', c.durability] : [],
  });
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
      seconds: options.seconds,
      concurrency: options.concurrency,
      ratePerTarget: c.ratePerProcess,
    });
    await subscribers?.close();
    return r;
  } finally {
    for (const neighbour of neighbours) neighbour.kill();
    for (const server of servers.reverse()) await server.cleanup();
  }
}

/** A process that keeps one core busy until killed (or for five minutes at most). */
function burnCpu(): ChildProcess {
  return spawn(
    process.execPath,
    ['-e', 'const end = Date.now() + 300000; while (Date.now() < end);'],
    { stdio: 'ignore' },
  );
}
