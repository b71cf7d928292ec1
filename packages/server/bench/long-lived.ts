import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_PRUNING_PACE } from '../src/kernel/retention/pruning-pace.js';
import { seededRunsLeft, seedLongLived, storeCounts, vacuumStore } from './long-lived-seed.js';
import { alternating, cpu, fmt, measure, ms, type Result, row } from './measure.js';
import { say, stage } from './progress.js';
import { type Server, startServer } from './server-process.js';

/** How big a long-lived store the case seeds, and how long it measures. */
export interface LongLivedOptions {
  events: number;
  runs: number;
  seconds: number;
  concurrency: number;
}

function directoryBytes(dir: string): number {
  let total = 0;
  for (const name of readdirSync(dir)) {
    const stat = statSync(join(dir, name));
    total += stat.isDirectory() ? directoryBytes(join(dir, name)) : stat.size;
  }
  return total;
}

const mb = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(0)} MB`;

async function stopKeeping(server: Server): Promise<void> {
  server.child.kill('SIGTERM');
  await new Promise((resolve) => server.child.once('exit', resolve));
}

async function parkAndApprove(
  server: Server,
  options: LongLivedOptions,
  seconds = options.seconds,
): Promise<Result> {
  return measure({
    targets: [server],
    pids: [server.child.pid],
    shape: 'model',
    seconds,
    concurrency: options.concurrency,
  });
}

/** Rounds a case alternates with the empty store: each round measures both, in turns. */
const ROUNDS = 3;

/** One side's window in a round (and a warm-up's): `--seconds` shared by the rounds. */
const roundSeconds = (options: LongLivedOptions) => Math.max(1, options.seconds / ROUNDS);

/**
 * Measures `server` and the empty store's kernel in alternation (`alternating`),
 * ROUNDS rounds of `seconds / ROUNDS` each. (Measured once, first, the empty
 * store was the slowest case of all.)
 */
async function besideEmpty(
  server: Server,
  empty: Server,
  options: LongLivedOptions,
  warmUp: boolean,
): Promise<{ measured: Result; empty: Result }> {
  const seconds = roundSeconds(options);
  // A kernel just started is measured after a warm-up of its own, as the empty one had.
  if (warmUp) await parkAndApprove(server, options, seconds);
  const [emptyResult, measured] = await alternating(
    [() => parkAndApprove(empty, options, seconds), () => parkAndApprove(server, options, seconds)],
    ROUNDS,
  );
  return { measured: measured!, empty: emptyResult! };
}

function resultRow(label: string, pair: { measured: Result; empty: Result }, note: string): void {
  const r = pair.measured;
  const versus = `${(r.perSecond / pair.empty.perSecond).toFixed(2)} / ${(r.p99 / pair.empty.p99).toFixed(2)}`;
  const beside = `empty beside it: ${fmt(pair.empty.perSecond)}/s, p99 ${ms(pair.empty.p99)} ms, ${cpu(pair.empty)}`;
  row([
    'sqlite',
    label,
    fmt(r.perSecond),
    ms(r.p50),
    ms(r.p99),
    versus,
    cpu(r),
    `${beside}; ${note}`,
  ]);
}

/**
 * The long-lived case: park-and-approve against an empty store, then against
 * one seeded with `events` events of `runs` ended runs (100 to 200 days old),
 * then while the kernel prunes them under a policy of events and runs 90
 * days, audit 365 (at its default pace; the rest of the backlog is pruned flat
 * out by a kernel started with --retention-pace 1), then after; and the data directory's size before, after pruning, and
 * after an offline VACUUM. The empty store's kernel stays up throughout, and
 * each case is read against it measured in alternation (`besideEmpty`).
 */
export async function longLivedCase(options: LongLivedOptions): Promise<void> {
  say(
    `\nlong-lived store: ${options.events.toLocaleString('en')} events of ${options.runs.toLocaleString('en')} ended runs ` +
      `(--long-lived-events, --long-lived-runs), policy events 90 d, runs 90 d, audit 365 d`,
  );
  say(
    '| store | park-and-approve | round trips/s | p50 ms | p99 ms | vs the empty store beside it (rate / p99) | server CPU per round trip | note |',
  );
  say('| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |');
  const fresh = await startServer(null);
  try {
    stage('warming the empty store up');
    await parkAndApprove(fresh, options, roundSeconds(options));
    await seededCases(options, fresh);
  } finally {
    await fresh.cleanup();
  }
}

/** Seeds a store, then measures it beside the empty store's kernel (`fresh`). */
async function seededCases(options: LongLivedOptions, fresh: Server): Promise<void> {
  const first = await startServer(null);
  const dataDir = join(first.child.spawnargs[first.child.spawnargs.indexOf('--data-dir') + 1]!);
  await stopKeeping(first);
  try {
    stage(
      `seeding ${options.events.toLocaleString('en')} events and ${options.runs.toLocaleString('en')} runs`,
    );
    const seeded = seedLongLived({
      dataDir,
      workspaceId: first.workspaceId,
      events: options.events,
      runs: options.runs,
      oldestDays: 200,
      newestDays: 100,
    });
    const seededBytes = directoryBytes(dataDir);
    const kernel = (pace: string) =>
      startServer(null, {
        dataDir,
        joining: first,
        args: ['--retention-interval', '1s', '--retention-pace', pace],
      });
    let server = await kernel(String(DEFAULT_PRUNING_PACE));
    try {
      resultRow(
        'seeded store',
        await besideEmpty(server, fresh, options, true),
        `seeded in ${seeded.seconds.toFixed(0)} s; data dir ${mb(seededBytes)}`,
      );
      const put = await fetch(`${server.url}${server.ws}/retention`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${server.member}`, 'content-type': 'application/json' },
        body: JSON.stringify({ events_days: 90, runs_days: 90, audit_days: 365 }),
      });
      if (!put.ok) throw new Error(`PUT retention answered ${put.status}`);
      const pruneStarted = Date.now();
      resultRow(
        'seeded store, while pruning',
        await besideEmpty(server, fresh, options, false),
        `pruning in batches of at most 500 rows and 3 ms, at the default pace (${DEFAULT_PRUNING_PACE}), also while the empty store is measured`,
      );
      // The rest of the backlog goes flat out: the store after pruning is the same at any pace,
      // and at the default one the size takes several times as long.
      await stopKeeping(server);
      server = await kernel('1');
      for (;;) {
        const left = seededRunsLeft(dataDir);
        stage(
          `waiting for the kernel to prune (${((Date.now() - pruneStarted) / 1000).toFixed(0)} s)`,
        );
        if (!left || Date.now() - pruneStarted > 3_600_000) break;
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
      const pruneSeconds = (Date.now() - pruneStarted) / 1000;
      await stopKeeping(server);
      server = await kernel(String(DEFAULT_PRUNING_PACE));
      const after = await besideEmpty(server, fresh, options, true);
      const counts = storeCounts(dataDir);
      resultRow(
        'after pruning',
        after,
        `pruned in ${pruneSeconds.toFixed(0)} s (${options.seconds} s at the default pace, then flat out); ${counts.events.toLocaleString('en')} events left (audit kept 365 d)`,
      );
      await stopKeeping(server);
      const prunedBytes = directoryBytes(dataDir);
      rmSync(join(dataDir, 'exports'), { recursive: true, force: true });
      const withoutExports = directoryBytes(dataDir);
      vacuumStore(dataDir);
      say(
        `data dir: ${mb(seededBytes)} seeded; ${mb(prunedBytes)} after pruning ` +
          `(${mb(prunedBytes - withoutExports)} of it the exports; ${mb(counts.freePages * counts.pageSize)} free pages ` +
          `the store reuses); ${mb(directoryBytes(dataDir))} after an offline VACUUM`,
      );
    } finally {
      if (server.child.exitCode === null) await stopKeeping(server);
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
