/**
 * The fault test: kill -9 real `airlock serve` processes at random moments of
 * a scripted workload (parks, rule decisions, person decisions, commits,
 * lifecycle hooks), on SQLite (one kernel) and on PostgreSQL (two kernels on
 * one database), then check that every row rests in one terminal or waiting
 * state, nothing ran twice, no approval was lost or applied twice, and the
 * feed is gap-free. Loopback only; bounded (about a minute per store).
 *
 *   ./run test:faults            (starts a throwaway PostgreSQL when one is installed)
 *   node --import tsx scripts/fault-test.ts [--seconds 20] [--runs 40] [--only store|notify]
 *
 * The notify phases (scripts/faults/notify-phase.ts) kill kernels that send
 * webhook notices, and check each park reached each channel under one id.
 *
 * Exits 1 on any violation, printing each; prints its figures either way.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  freshPostgresDatabase,
  postgresSkipReason,
} from '../packages/server/src/testing/postgres.js';
import { callUntilAnswered, sleep } from './faults/http.js';
import { snapshot, violations } from './faults/invariants.js';
import { type KernelProcess, type StoreArgs, startKernel } from './faults/kernel-process.js';
import { notifyPhase } from './faults/notify-phase.js';
import { type PhaseProgress, withPhaseProgress } from './faults/phase-progress.js';
import {
  type Actors,
  createRuns,
  decideParks,
  executeRows,
  type Ledger,
  newLedger,
} from './faults/workload.js';

const { values } = parseArgs({
  // `pnpm x -- --flag` hands the `--` on: the flags after it are still ours.
  args: process.argv.slice(2).filter((arg) => arg !== '--'),
  options: {
    seconds: { type: 'string', default: '20' },
    runs: { type: 'string', default: '40' },
    only: { type: 'string' },
  },
});
const WINDOW_MS = Number(values.seconds) * 1000;
const RUNS = Number(values.runs);
const DRAIN_MS = 90_000;

function between(low: number, high: number): number {
  return low + Math.floor(Math.random() * (high - low));
}

function actorsFrom(banner: string): Actors {
  const pick = (pattern: RegExp) => {
    const found = pattern.exec(banner)?.[1];
    if (!found) throw new Error(`no ${pattern} in the first start's banner:\n${banner}`);
    return found;
  };
  return {
    ws: `/api/v1/workspaces/${pick(/workspace\s+(\S+)/)}`,
    agent: pick(/agent token\s+(\S+)/),
    executor: pick(/executor token\s+(\S+)/),
    member: pick(/member token\s+(\S+)/),
  };
}

/** Kills kernels with SIGKILL at random moments until the window closes; answers the kill count. */
async function killer(kernels: KernelProcess[], until: number): Promise<number> {
  let kills = 0;
  while (Date.now() < until) {
    await sleep(between(300, 1500));
    // Mostly one kernel; now and then every kernel at once.
    const victims =
      kernels.length > 1 && Math.random() < 0.2 ? kernels : [kernels[between(0, kernels.length)]!];
    await Promise.all(victims.map((k) => k.kill9()));
    kills += victims.length;
    await sleep(between(50, 700));
    for (const victim of victims) await victim.start();
  }
  return kills;
}

async function allSettled(kernels: KernelProcess[], actors: Actors, ledger: Ledger) {
  const listed = await callUntilAnswered(
    kernels,
    actors.member,
    'GET',
    `${actors.ws}/runs?limit=1000`,
  );
  const runs = listed.body.runs as { id: string; state: string }[];
  return runs.length >= ledger.created.size && runs.every((r) => r.state !== 'running');
}

async function phase(
  name: string,
  stores: StoreArgs[],
  progress: PhaseProgress,
): Promise<string[]> {
  const started = Date.now();
  progress.stage('starting kernels');
  const kernels: KernelProcess[] = [];
  kernels.push(await startKernel(`${name}-1`, stores[0]!));
  // The first start prints the local workspace and its tokens just after it listens.
  const bannerBy = Date.now() + 10_000;
  while (!kernels[0]!.stderr.includes('member token') && Date.now() < bannerBy) await sleep(50);
  const actors = actorsFrom(kernels[0]!.stderr);
  for (let i = 1; i < stores.length; i++)
    kernels.push(await startKernel(`${name}-${i + 1}`, stores[i]!));
  const ledger = newLedger();
  let done = false;
  const until = () => done;
  const workers = [
    decideParks(kernels, actors, ledger, until),
    executeRows(kernels, actors, ledger, until),
    executeRows(kernels, actors, ledger, until),
  ];
  progress.stage(`workload under kill -9 for ${WINDOW_MS / 1000} s`);
  const killing = killer(kernels, Date.now() + WINDOW_MS);
  await createRuns(kernels, actors, ledger, { count: RUNS, gapMs: WINDOW_MS / RUNS });
  const kills = await killing;
  progress.stage('draining: waiting for every run to settle');
  const drainEnds = Date.now() + DRAIN_MS;
  while (!(await allSettled(kernels, actors, ledger)) && Date.now() < drainEnds) await sleep(250);
  done = true;
  await Promise.all(workers);
  progress.stage('checking invariants');
  const state = await snapshot(kernels, actors);
  const found = violations(state, ledger);
  for (const kernel of kernels) await kernel.stop();
  const rows = state.runs.reduce((n, r) => n + r.tasks.length, 0);
  const reclaims = [...ledger.claims.values()].filter((n) => n > 1).length;
  const sum = (map: Map<string, number>) => [...map.values()].reduce((a, b) => a + b, 0);
  progress.say(
    `fault-test ${name}: ${kernels.length} kernel(s), ${kills} kill -9, ${state.runs.length} runs ` +
      `(${ledger.created.size} answered 201), ${rows} rows, ${sum(ledger.approved)} approves and ` +
      `${sum(ledger.denied)} denies answered, ${sum(ledger.commits)} commits accepted, ` +
      `${reclaims} rows claimed again after a lost lease, ${state.feed.length} feed events, ` +
      `${ledger.unreachable} requests lost to a kill, ${ledger.serverErrors} 5xx answers, ` +
      `${((Date.now() - started) / 1000).toFixed(1)} s, ${found.length} violation(s)`,
  );
  return found.map((v) => `${name}: ${v}`);
}

process.on('uncaughtException', (error) => {
  console.error(error);
  process.exit(2);
});
const found: string[] = [];
const pgSkip = await postgresSkipReason();
if (values.only !== 'notify') {
  const dataDir = mkdtempSync(join(tmpdir(), 'airlock-faults-'));
  try {
    found.push(
      ...(await withPhaseProgress('sqlite', (progress) =>
        phase('sqlite', [{ dataDir }], progress),
      )),
    );
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  if (pgSkip) {
    console.log(`fault-test postgres: SKIPPED (${pgSkip})`);
  } else {
    const databaseUrl = await freshPostgresDatabase();
    found.push(
      ...(await withPhaseProgress('postgres', (progress) =>
        phase('postgres', [{ databaseUrl }, { databaseUrl }], progress),
      )),
    );
  }
}
if (values.only !== 'store') {
  const notifyWindow = { windowMs: Math.min(WINDOW_MS, 15_000), runs: Math.min(RUNS, 30) };
  const dataDir = mkdtempSync(join(tmpdir(), 'airlock-faults-notify-'));
  try {
    found.push(
      ...(await withPhaseProgress('notify-sqlite', (progress) =>
        notifyPhase('notify-sqlite', [{ dataDir }], killer, notifyWindow, progress),
      )),
    );
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  if (pgSkip) {
    console.log(`fault-test notify-postgres: SKIPPED (${pgSkip})`);
  } else {
    const databaseUrl = await freshPostgresDatabase();
    found.push(
      ...(await withPhaseProgress('notify-postgres', (progress) =>
        notifyPhase(
          'notify-postgres',
          [{ databaseUrl }, { databaseUrl }],
          killer,
          notifyWindow,
          progress,
        ),
      )),
    );
  }
}
for (const violation of found) console.log(`VIOLATION ${violation}`);
process.exit(found.length === 0 ? 0 : 1);
