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

/** Erases the progress line for good: the benchmark is over. */
export function finished(): void {
  ticker.done();
}
