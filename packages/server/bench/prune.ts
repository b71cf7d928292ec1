/**
 * Benchmark: how fast the kernel's pruner empties a long-lived SQLite store,
 * and how long each of its steps holds the process (and so the write path).
 *
 *   pnpm --filter @airlock/server bench:prune [-- --events 200000 --runs 20000 --durability full]
 *                                              [--batch-rows 500 --batch-runs 100 --unit-budget-ms 3 --pace 1]
 *                                              [--runs-per-conversation 10 (0: none)]
 *                                              [--tasks-per-run 1 (long hooked sessions hold hundreds)]
 *
 * Seeds a store with `runs` ended runs (100 to 200 days old, one task each or `--tasks-per-run`,
 * every ten in a conversation unless told otherwise) and `events` events by
 * bulk insert, opens a kernel on it in this process, sets a policy of events and runs 90 days and
 * audit 365, and times one pruning pass. It prints runs and events pruned per
 * second; how long each unit of work held the write path (the time its
 * statements ran, p50, p99 and longest: no other write runs meanwhile on
 * SQLite; the pruner sizes its units to `--unit-budget-ms`), and the
 * process's CPU time in each (the unit's own work without the time the
 * machine gave to other jobs, which the wall time includes under load),
 * the commits' p99 and longest duration, and the longest stall of the event
 * loop (which on a loaded machine includes time the process was not
 * scheduled); then how long a second pass takes with nothing left to
 * prune. `node --cpu-prof` on this script profiles the pass itself.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { startAirlock } from '../src/airlock.js';
import { parsePruningPace } from '../src/kernel/retention/pruning-pace.js';
import { createWorkspace } from '../src/store/accounts.js';
import { createAgentApplication } from '../src/store/applications.js';
import { parseDurability } from '../src/store/durability.js';
import { writeRetentionPolicy } from '../src/store/retention.js';
import { Store } from '../src/store/store.js';
import { seedLongLived, storeCounts } from './long-lived-seed.js';
import { runBench, say, stage } from './progress.js';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((arg) => arg !== '--'),
  options: {
    events: { type: 'string', default: '200000' },
    runs: { type: 'string', default: '20000' },
    durability: { type: 'string', default: 'full' },
    'batch-rows': { type: 'string' },
    'batch-runs': { type: 'string' },
    'unit-budget-ms': { type: 'string' },
    // The pass's own speed: it never rests unless told (the kernel's default pace is 0.25).
    pace: { type: 'string', default: '1' },
    'runs-per-conversation': { type: 'string', default: '10' },
    'tasks-per-run': { type: 'string', default: '1' },
  },
});

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0
    ? 0
    : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'airlock-bench-prune-'));
  try {
    const setup = await Store.open({ dataDir });
    const workspace = await createWorkspace(setup, 'bench');
    await createAgentApplication(setup, { workspaceId: workspace.id, name: 'bench' });
    await setup.close();
    const runs = Number(values.runs);
    const events = Number(values.events);
    stage(`seeding ${events.toLocaleString('en')} events of ${runs.toLocaleString('en')} runs`);
    const seeded = seedLongLived({
      dataDir,
      workspaceId: workspace.id,
      events,
      runs,
      oldestDays: 200,
      newestDays: 100,
      runsPerConversation: Number(values['runs-per-conversation']) || undefined,
      tasksPerRun: Number(values['tasks-per-run']) || 1,
    });
    const airlock = await startAirlock({
      dataDir,
      durability: parseDurability(values.durability),
      metrics: false,
      // The pass below is started by hand, never by the clock sweep.
      retention: {
        intervalMs: 10 * 365 * 24 * 3_600_000,
        batchRows: values['batch-rows'] === undefined ? undefined : Number(values['batch-rows']),
        batchRuns: values['batch-runs'] === undefined ? undefined : Number(values['batch-runs']),
        unitBudgetMs:
          values['unit-budget-ms'] === undefined ? undefined : Number(values['unit-budget-ms']),
        pace: parsePruningPace(values.pace, '--pace'),
      },
    });
    try {
      await airlock.store.transaction((tx) =>
        writeRetentionPolicy(tx, {
          workspaceId: workspace.id,
          principal: 'member:bench',
          events_days: 90,
          runs_days: 90,
          audit_days: 365,
        }),
      );
      const commits: number[] = [];
      const units: number[] = [];
      // The process's CPU time in each unit: the unit's own work, without the time the machine
      // gave to others (but with any other thread of the process that ran meanwhile).
      const unitsCpu: number[] = [];
      const store = airlock.store;
      const transaction = store.transaction.bind(store);
      // Times each unit's own statements: how long it holds the batch every other write waits on.
      store.transaction = (work) =>
        transaction(async (tx) => {
          const started = performance.now();
          const cpu = process.cpuUsage();
          try {
            return await work(tx);
          } finally {
            units.push(performance.now() - started);
            const spent = process.cpuUsage(cpu);
            unitsCpu.push((spent.user + spent.system) / 1000);
          }
        });
      airlock.store.observeCommits((seconds) => commits.push(seconds * 1000));
      const stalls = monitorEventLoopDelay({ resolution: 1 });
      stage('pruning');
      stalls.enable();
      const started = performance.now();
      const report = await airlock.kernel.pruner!.pruneNow();
      const seconds = (performance.now() - started) / 1000;
      stalls.disable();
      // A pass with nothing left to prune: what every later tick costs (the kept audit events stay).
      const idleStarted = performance.now();
      await airlock.kernel.pruner!.pruneNow();
      const idleMs = performance.now() - idleStarted;
      commits.sort((a, b) => a - b);
      units.sort((a, b) => a - b);
      unitsCpu.sort((a, b) => a - b);
      const left = storeCounts(dataDir);
      say(
        `prune pass over ${runs.toLocaleString('en')} seeded runs and ${events.toLocaleString('en')} events ` +
          `(seeded in ${seeded.seconds.toFixed(0)} s), durability ${values.durability}, Node ${process.version}`,
      );
      say(
        '| pruned | seconds | runs/s | events/s | units of work | unit p50 ms | unit p99 ms | longest unit ms | commit p99 ms | longest commit ms | longest loop stall ms |',
      );
      say('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
      say(
        `| ${report.runs} runs, ${report.events} events, ${report.audit} audit | ${seconds.toFixed(1)} | ` +
          `${(report.runs / seconds).toFixed(0)} | ${((report.events + report.audit) / seconds).toFixed(0)} | ` +
          `${units.length} | ${percentile(units, 0.5).toFixed(2)} | ${percentile(units, 0.99).toFixed(2)} | ${(units.at(-1) ?? 0).toFixed(2)} | ` +
          `${percentile(commits, 0.99).toFixed(2)} | ${(commits.at(-1) ?? 0).toFixed(2)} | ` +
          `${(stalls.max / 1e6).toFixed(1)} |`,
      );
      say(
        `write-path hold per unit of work (its statements' time, ${units.length} units, budget ` +
          `${values['unit-budget-ms'] ?? 3} ms): p50 ${percentile(units, 0.5).toFixed(2)} ms, ` +
          `p99 ${percentile(units, 0.99).toFixed(2)} ms, max ${(units.at(-1) ?? 0).toFixed(2)} ms; ` +
          `CPU time per unit: p50 ${percentile(unitsCpu, 0.5).toFixed(2)} ms, p99 ${percentile(unitsCpu, 0.99).toFixed(2)} ms, ` +
          `max ${(unitsCpu.at(-1) ?? 0).toFixed(2)} ms; load average ${loadavg()
            .map((load) => load.toFixed(2))
            .join(' ')}${loadavg()[0]! >= 1.5 ? ', measured under load' : ''}`,
      );
      say(`a second pass, with nothing left to prune: ${idleMs.toFixed(1)} ms`);
      if (left.seededRuns + left.seededConversations !== 0) {
        throw new Error(
          `${left.seededRuns} seeded runs and ${left.seededConversations} conversations left after the pass`,
        );
      }
    } finally {
      await airlock.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

runBench(main);
