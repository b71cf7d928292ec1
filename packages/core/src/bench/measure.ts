/** Timing helpers for the benchmark scripts: they print figures and assert nothing. */

const MIN_SECONDS = 0.6;
/** CPU seconds of warm-up before timing, so the optimizing compiler is done before the clock starts. */
const WARM_UP_SECONDS = 0.3;

/** CPU seconds this process has used: on a shared machine, time it was not scheduled does not count. */
function cpuSeconds(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1e6;
}

/**
 * Calls per CPU second over repeated passes of `calls`, after warm-up
 * passes (at least one, and at least WARM_UP_SECONDS), the same for every
 * evaluator measured. CPU time rather than wall time, so that other
 * processes on a shared machine do not count against the figure (on an
 * idle machine they agree).
 */
export function throughput<T>(
  calls: readonly T[],
  run: (call: T) => unknown,
  minSeconds = MIN_SECONDS,
): number {
  let sink = 0;
  const warmUpStart = cpuSeconds();
  do {
    for (const call of calls) if (run(call)) sink++;
  } while (cpuSeconds() - warmUpStart < WARM_UP_SECONDS);
  let rounds = 0;
  const start = cpuSeconds();
  let elapsed = 0;
  while (elapsed < minSeconds) {
    for (const call of calls) if (run(call)) sink++;
    rounds++;
    elapsed = cpuSeconds() - start;
  }
  if (sink < 0) console.log(sink);
  return (rounds * calls.length) / elapsed;
}

/** How many timed slices each evaluator gets in `throughputSideBySide`. */
const SLICES = 5;

/**
 * Calls per CPU second of several evaluators over the same calls, timed in
 * alternating slices (each gets SLICES slices of about MIN_SECONDS / SLICES,
 * after its warm-up) and reported as the median slice of each: a change in
 * the machine's load during the run falls on all of them alike, so their
 * ratios hold even when the absolute figures move.
 */
export function throughputSideBySide<T>(
  calls: readonly T[],
  runs: readonly ((call: T) => unknown)[],
): number[] {
  let sink = 0;
  for (const run of runs) {
    const warmUpStart = cpuSeconds();
    do {
      for (const call of calls) if (run(call)) sink++;
    } while (cpuSeconds() - warmUpStart < WARM_UP_SECONDS);
  }
  const slices: number[][] = runs.map(() => []);
  for (let slice = 0; slice < SLICES; slice++) {
    runs.forEach((run, index) => {
      let rounds = 0;
      const start = cpuSeconds();
      let elapsed = 0;
      while (elapsed < MIN_SECONDS / SLICES) {
        for (const call of calls) if (run(call)) sink++;
        rounds++;
        elapsed = cpuSeconds() - start;
      }
      slices[index]!.push((rounds * calls.length) / elapsed);
    });
  }
  if (sink < 0) console.log(sink);
  return slices.map((rates) => percentile(rates, 0.5));
}

/** The median cost of reading the clock twice, subtracted from per-call samples. */
export function timerOverhead(): number {
  const samples: number[] = [];
  for (let i = 0; i < 20_000; i++) {
    const start = process.hrtime.bigint();
    samples.push(Number(process.hrtime.bigint() - start));
  }
  return percentile(samples, 0.5);
}

/** p50 and p99 of per-call latency in ns over three passes. */
export function latencies<T>(calls: readonly T[], run: (call: T) => unknown, overhead: number) {
  const samples: number[] = [];
  for (let round = 0; round < 3; round++) {
    for (const call of calls) {
      const start = process.hrtime.bigint();
      run(call);
      samples.push(Math.max(0, Number(process.hrtime.bigint() - start) - overhead));
    }
  }
  return { p50: percentile(samples, 0.5), p99: percentile(samples, 0.99) };
}

/** The q-quantile of the samples (nearest rank). */
export function percentile(samples: readonly number[], q: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/** Best CPU time in ms of `times` runs of `run` (after one warm-up run), and its last result. */
export function bestOf<R>(times: number, run: () => R): { ms: number; result: R } {
  let best = Number.POSITIVE_INFINITY;
  let result = run();
  for (let i = 0; i < times; i++) {
    const start = cpuSeconds();
    result = run();
    best = Math.min(best, (cpuSeconds() - start) * 1e3);
  }
  return { ms: best, result };
}

/** A number with thousands separators. */
export const format = (n: number) => Math.round(n).toLocaleString('en-US');

/** ns per unit of the cheapest pass over a text (summing its UTF-16 units), best of five: the machine's pace. */
export function plainLoopNsPerUnit(): number {
  const text = 'git status && npm run build; '.repeat(1 << 15);
  const { ms } = bestOf(5, () => {
    let sum = 0;
    for (let i = 0; i < text.length; i++) sum += text.charCodeAt(i);
    return sum;
  });
  return (ms * 1e6) / text.length;
}
