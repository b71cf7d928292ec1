import { stageTicker } from '@airlock/core';

/**
 * The benchmarks' progress line on a terminal (`bench: <step>, 12.3 s`),
 * never in CI or a pipe: a case runs for seconds and pruning a seeded store
 * for minutes, and a silent terminal looks like a hang.
 */
const ticker = stageTicker(process.stderr, process.env, 'bench');

/** Names the step the benchmark is in. */
export function stage(text: string): void {
  ticker.stage(text);
}

/** Prints a line of the report, erasing the progress line first (the next tick redraws it). */
export function say(line: string): void {
  ticker.clear();
  console.log(line);
}

/** Runs a benchmark's main to its end: the progress line erased, a failure printed with exit 1. */
export function runBench(main: () => Promise<void>): void {
  main().then(
    () => ticker.done(),
    (error: unknown) => {
      ticker.done();
      console.error(error);
      process.exit(1);
    },
  );
}
