/**
 * Benchmark: what recording metrics costs a park-then-approve round trip.
 *
 *   pnpm --filter @airlock/server bench:metrics [-- --seconds 5 --rounds 3 --concurrency 16]
 *
 * 1. In process: the metric updates one round trip makes (two request
 *    timings, the stage's timing and count, the wait to the decision, and
 *    three commits with their batch sizes), repeated, in ns of CPU per round trip.
 * 2. Against real `airlock serve` processes on SQLite: the round trip with
 *    metrics on (the default) and with `--no-metrics`, alternated `--rounds`
 *    times in the same run so a busy machine weighs on both alike; the
 *    medians of rate and server CPU per round trip.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createMetrics } from '../src/metrics/registry.js';
import { fmt, measure, type Result } from './measure.js';
import { packageDir, startServer } from './server-process.js';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((arg) => arg !== '--'),
  options: {
    seconds: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '16' },
  },
});

function recordingCost(): number {
  const metrics = createMetrics();
  const oneRoundTrip = (i: number) => {
    const seconds = (i % 1000) / 1e5;
    metrics.requestSeconds.observe({ operation: 'runs.create' }, seconds);
    metrics.stageSeconds.observe(seconds / 10);
    metrics.callsDecided.inc({ outcome: 'parked', layer: 'approval_rules' });
    metrics.requestSeconds.observe({ operation: 'decisions.approve' }, seconds);
    metrics.personDecisionSeconds.observe({ decision: 'approve' }, seconds * 1000);
    for (let commit = 0; commit < 3; commit += 1) {
      metrics.commitSeconds.observe(seconds / 5);
      metrics.commitBatchUnits.observe(1 + (i % 8));
    }
  };
  for (let i = 0; i < 50_000; i += 1) oneRoundTrip(i);
  const count = 500_000;
  // CPU time, not wall time: on a busy machine the wall clock counts other processes' turns.
  const started = process.cpuUsage();
  for (let i = 0; i < count; i += 1) oneRoundTrip(i);
  const used = process.cpuUsage(started);
  return ((used.user + used.system) * 1000) / count;
}

const median = (list: number[]) => {
  const sorted = [...list].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

async function serverCase(metricsOn: boolean): Promise<Result> {
  const server = await startServer(null, { args: metricsOn ? [] : ['--no-metrics'] });
  try {
    return await measure({
      targets: [server],
      pids: [server.child.pid],
      shape: 'model',
      seconds: Number(values.seconds),
      concurrency: Number(values.concurrency),
    });
  } finally {
    await server.cleanup();
  }
}

async function main() {
  execFileSync(join(packageDir, '../../node_modules/.bin/tsc'), ['-b', packageDir], {
    stdio: 'inherit',
  });
  console.log(
    `metric updates of one round trip, in process: ${recordingCost().toFixed(0)} ns of CPU`,
  );
  const on: Result[] = [];
  const off: Result[] = [];
  for (let round = 0; round < Number(values.rounds); round += 1) {
    on.push(await serverCase(true));
    off.push(await serverCase(false));
  }
  console.log(
    `\nrun create (model row parks) + approve on SQLite, ${values.concurrency} clients, ` +
      `${values.seconds}s per case, ${values.rounds} alternated rounds`,
  );
  console.log(
    '| metrics | round trips/s (each round) | median | median server CPU per round trip |',
  );
  console.log('| --- | --- | ---: | ---: |');
  for (const [label, results] of [
    ['on', on],
    ['off (--no-metrics)', off],
  ] as const) {
    console.log(
      `| ${label} | ${results.map((r) => fmt(r.perSecond)).join(', ')} | ` +
        `${fmt(median(results.map((r) => r.perSecond)))} | ` +
        `${fmt(median(results.map((r) => r.cpuUs[0] ?? 0)))} µs |`,
    );
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
