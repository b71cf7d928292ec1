import { percentile, post } from './http-client.js';
import { say, stage } from './progress.js';
import { parkThenApprove, type Target } from './round-trip.js';
import { postgresCpuMs, processCpuMs } from './server-process.js';
import type { Subscribers } from './subscribers.js';

/** The two round-trip shapes: a run whose one call parks, or an author row an `ask` rule parks. */
export type Shape = 'model' | 'author';

/** What one case measured. */
export interface Result {
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

export interface MeasureOptions {
  targets: Target[];
  pids: (number | undefined)[];
  shape: Shape;
  subscribers?: Subscribers | undefined;
  seconds: number;
  /** Concurrent clients in all, spread over the targets. */
  concurrency: number;
  /**
   * Round trips per second each target is offered, started on a fixed
   * schedule by its share of the clients; without it every client starts
   * its next round trip as soon as the last one ends.
   */
  ratePerTarget?: number | undefined;
}

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

/** A run an author row can be added to (the `author` shape), on the first target. */
async function authorRunOn(target: Target): Promise<string> {
  const run = await post(target.url, target.agent, `${target.ws}/runs`, {
    approval_mode: 'bypass',
    approval_rules: [{ tool: 'deploy', verdict: 'ask', origin: 'author' }],
    input: 'bench',
    provider: { kind: 'scripted', rounds: [{ tool_calls: [{ name: 'hold' }] }, { final: 'x' }] },
  });
  return run.id;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Drives the targets for one warm-up second and then `seconds`, and returns
 * the round trips/s, latencies and CPU of the measured part.
 */
export async function measure(options: MeasureOptions): Promise<Result> {
  const { targets, shape, ratePerTarget } = options;
  stage(`${shape} round trips for ${options.seconds} s`);
  const authorRun = shape === 'author' ? await authorRunOn(targets[0]!) : '';
  const latencies: number[] = [];
  // Round trips each target served: a process's CPU is divided by its own share.
  const served = targets.map(() => 0);
  const runFor = async (ms: number, record: boolean) => {
    const begin = performance.now();
    const end = begin + ms;
    // The next slot of each target's schedule (paced runs only).
    const slots = targets.map(() => 0);
    await Promise.all(
      Array.from({ length: options.concurrency }, async (_, client) => {
        const index = client % targets.length;
        const target = targets[index]!;
        for (;;) {
          if (ratePerTarget) {
            slots[index]! += 1;
            const at = begin + (slots[index]! * 1000) / ratePerTarget;
            if (at >= end || performance.now() >= end) return;
            const wait = at - performance.now();
            if (wait > 0) await sleep(wait);
          } else if (performance.now() >= end) return;
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
  await runFor(options.seconds * 1000, true);
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

/** The mean of equal windows' results: round trips/s, p50, p99, CPU per round trip. */
export function meanResult(results: readonly Result[]): Result {
  const mean = (pick: (r: Result) => number) =>
    results.reduce((sum, r) => sum + pick(r), 0) / results.length;
  const delivered = results.every((r) => r.deliveredPerSecond !== null)
    ? mean((r) => r.deliveredPerSecond!)
    : null;
  return {
    perSecond: mean((r) => r.perSecond),
    p50: mean((r) => r.p50),
    p99: mean((r) => r.p99),
    cpuUs: results[0]!.cpuUs.map((_, i) => mean((r) => r.cpuUs[i]!)),
    databaseCpuUs: mean((r) => r.databaseCpuUs),
    deliveredPerSecond: delivered,
  };
}

/**
 * Measures several sides in alternation, `rounds` rounds of one window each,
 * the order rotating every round, and returns each side's mean: the machine's
 * drift and the bench's own warm-up over the minutes weigh on every side
 * alike, which one side measured after another does not give.
 */
export async function alternating(
  sides: readonly (() => Promise<Result>)[],
  rounds: number,
): Promise<Result[]> {
  const results: Result[][] = sides.map(() => []);
  for (let round = 0; round < rounds; round += 1) {
    for (let turn = 0; turn < sides.length; turn += 1) {
      const side = (round + turn) % sides.length;
      results[side]!.push(await sides[side]!());
    }
  }
  return results.map(meanResult);
}

/** Prints one Markdown table row. */
export function row(cells: (string | number)[]): void {
  say(`| ${cells.join(' | ')} |`);
}

export const fmt = (n: number) => n.toFixed(0);
export const ms = (n: number) => n.toFixed(2);
/** Kernel CPU per round trip, one figure per process. */
export const cpu = (r: Result) => r.cpuUs.map((us) => `${fmt(us)} µs`).join(' + ');
/** Kernel CPU per round trip, and PostgreSQL's beside it. */
export const cpuWithDatabase = (r: Result) => `${cpu(r)} (PostgreSQL: ${fmt(r.databaseCpuUs)} µs)`;
