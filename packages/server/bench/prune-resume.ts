/**
 * Benchmark: what a pruning pass costs the kernel when there is nothing (or
 * little) left to prune but a long log it already swept: a run kept open
 * (a parked call, a long hooked session), or an audit window shorter than
 * the events window.
 *
 *   pnpm --filter @airlock/server bench:prune-resume [-- --events 1000000 --passes 3 --pace 1]
 *
 * Three SQLite stores, each with a kernel in this process on a clock of its own:
 *
 * - `live run`: one run parks, the policy is events 7 days and audit 365
 *   days, then `events` audit records of other, finished work are written
 *   after it (bulk insert) and the clock moves 50 days on;
 * - `no live run`: the same without the parked run (the baseline);
 * - `audit window shorter`: events and runs kept, audit 30 days, and
 *   `events` lifecycle events 400 days old.
 *
 * For each it times `passes` passes one after another (the first sweeps the
 * seeded log, the later ones have nothing new to read) and the longest stall
 * of the event loop during each: its wall time, and its own time without the
 * time the machine kept the thread waiting for a CPU (see watchLoopStalls),
 * which is what a request to the kernel waits behind on a quiet machine.
 * The pace is 1 (flat out) unless told: the stalls are each batch's own.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import SqliteDatabase from 'better-sqlite3';
import { startAirlock } from '../src/airlock.js';
import { parsePruningPace } from '../src/kernel/retention/pruning-pace.js';
import { SQLITE_FILE_NAME } from '../src/store/sqlite/sqlite-backend.js';
import { client } from '../src/testing/harness.js';
import { watchLoopStalls } from '../src/testing/loop-stalls.js';
import { workspaceWithTokens } from '../src/testing/workspace-tokens.js';
import { runBench, say, stage } from './progress.js';

const DAY = 24 * 60 * 60 * 1000;

const { values } = parseArgs({
  args: process.argv.slice(2).filter((arg) => arg !== '--'),
  options: {
    events: { type: 'string', default: '1000000' },
    passes: { type: 'string', default: '3' },
    pace: { type: 'string', default: '1' },
  },
});

interface Scenario {
  name: string;
  liveRun: boolean;
  policy: { events_days: number | null; runs_days: number | null; audit_days: number | null };
  /** The seeded events' type, how old they are when the passes run, and how far apart (ms). */
  seed: { type: string; ageDays: number; spacingMs: number };
}

const SCENARIOS: Scenario[] = [
  {
    name: 'live run',
    liveRun: true,
    policy: { events_days: 7, runs_days: null, audit_days: 365 },
    seed: { type: 'task.granted', ageDays: 50, spacingMs: 0.01 },
  },
  {
    name: 'no live run',
    liveRun: false,
    policy: { events_days: 7, runs_days: null, audit_days: 365 },
    seed: { type: 'task.granted', ageDays: 50, spacingMs: 0.01 },
  },
  {
    name: 'audit window shorter',
    liveRun: false,
    policy: { events_days: null, runs_days: null, audit_days: 30 },
    seed: { type: 'run.started', ageDays: 400, spacingMs: 0.001 },
  },
];

const PARKS = {
  approval_mode: 'ask',
  input: 'deploy it',
  provider: {
    kind: 'scripted',
    rounds: [{ tool_calls: [{ name: 'deploy', input: {} }] }, { final: 'done' }],
  },
};

interface PassFigure {
  pass: number;
  pruned: string;
  ms: number;
  stallWallMs: number;
  stallOwnMs: number;
}

async function measure(scenario: Scenario, events: number): Promise<PassFigure[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'airlock-bench-prune-resume-'));
  let now = Date.now() - scenario.seed.ageDays * DAY;
  try {
    const airlock = await startAirlock({
      dataDir,
      clock: () => now,
      metrics: false,
      parkTtlMs: 10 * 365 * DAY,
      retention: {
        exportDir: join(dataDir, 'exports'),
        // Passes are started by hand, never by the clock sweep.
        intervalMs: 10 * 365 * DAY,
        pace: parsePruningPace(values.pace, '--pace'),
      },
    });
    try {
      const pruner = airlock.kernel.pruner!;
      await pruner.pruneNow();
      const { workspaceId, tokens } = await workspaceWithTokens(airlock.store, 'bench');
      const ws = `/api/v1/workspaces/${workspaceId}`;
      const member = client(airlock.url, tokens.member);
      if (scenario.liveRun) {
        const agent = client(airlock.url, tokens.agent);
        const runId = (await agent.post(`${ws}/runs`, PARKS)).body.id as string;
        for (let i = 0; ; i++) {
          if ((await member.get(`${ws}/runs/${runId}/tasks/t1`)).body.state === 'needs_approval') {
            break;
          }
          if (i > 500) throw new Error(`run ${runId} never parked`);
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      }
      now += 1000;
      const put = await member.put(`${ws}/retention`, scenario.policy);
      if (put.status !== 200) throw new Error(`policy refused: ${JSON.stringify(put.body)}`);
      stage(
        `${scenario.name}: seeding ${events.toLocaleString('en')} ${scenario.seed.type} events`,
      );
      // Written beside the kernel (it is idle meanwhile), after its own events.
      const database = new SqliteDatabase(join(dataDir, SQLITE_FILE_NAME));
      database.pragma('busy_timeout = 10000');
      const head = (
        database.prepare('select event_seq from workspaces where id = ?').get(workspaceId) as {
          event_seq: number;
        }
      ).event_seq;
      const insert = database.prepare(
        `insert into run_events (workspace_id, seq, run_id, task_key, type, data, principal, created_at)
         values (?, ?, 'run_gone', null, ?, '{}', null, ?)`,
      );
      database.transaction(() => {
        for (let i = 1; i <= events; i++) {
          insert.run(
            workspaceId,
            head + i,
            scenario.seed.type,
            now + 1 + Math.floor(i * scenario.seed.spacingMs),
          );
        }
        database
          .prepare('update workspaces set event_seq = ? where id = ?')
          .run(head + events, workspaceId);
      })();
      // The kernel's next commit would otherwise fold the seeded log into the file, inside a pass.
      database.pragma('wal_checkpoint(TRUNCATE)');
      database.close();
      now += scenario.seed.ageDays * DAY;
      const figures: PassFigure[] = [];
      for (let pass = 1; pass <= Number(values.passes); pass++) {
        stage(`${scenario.name}: pass ${pass}`);
        const stalls = watchLoopStalls();
        const started = performance.now();
        const report = await pruner.pruneNow();
        const ms = performance.now() - started;
        const { wallMs, ownMs } = stalls.stop();
        figures.push({
          pass,
          pruned: `${report.events} events, ${report.audit} audit`,
          ms,
          stallWallMs: wallMs,
          stallOwnMs: ownMs,
        });
      }
      return figures;
    } finally {
      await airlock.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const events = Number(values.events);
  const results = new Map<string, PassFigure[]>();
  for (const scenario of SCENARIOS) results.set(scenario.name, await measure(scenario, events));
  say(
    `pruning passes over ${events.toLocaleString('en')} seeded events, pace ${values.pace}, Node ${process.version}, ` +
      `load average ${loadavg()
        .map((load) => load.toFixed(2))
        .join(' ')}${loadavg()[0]! >= 1.5 ? ' (measured under load)' : ''}`,
  );
  say(
    '| store | pass | pruned | pass ms | longest loop stall ms (own) | longest loop stall ms (wall) |',
  );
  say('| --- | ---: | --- | ---: | ---: | ---: |');
  for (const [name, figures] of results) {
    for (const figure of figures) {
      say(
        `| ${name} | ${figure.pass} | ${figure.pruned} | ${figure.ms.toFixed(1)} | ` +
          `${figure.stallOwnMs.toFixed(1)} | ${figure.stallWallMs.toFixed(1)} |`,
      );
    }
  }
  // The later passes (nothing new to read) against the baseline's: 1 means a live run costs nothing.
  const later = (name: string) => {
    const figures = results.get(name)!.slice(1);
    return {
      ms: Math.max(...figures.map((figure) => figure.ms)),
      stall: Math.max(...figures.map((figure) => figure.stallOwnMs)),
    };
  };
  const base = later('no live run');
  for (const name of ['live run', 'audit window shorter']) {
    const figure = later(name);
    say(
      `${name}, passes after the first: longest ${figure.ms.toFixed(1)} ms (${(figure.ms / base.ms).toFixed(1)}x the baseline's ` +
        `${base.ms.toFixed(1)} ms), longest own stall ${figure.stall.toFixed(1)} ms (baseline ${base.stall.toFixed(1)} ms)`,
    );
  }
}

runBench(main);
