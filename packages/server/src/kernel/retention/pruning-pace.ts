import { setTimeout as sleep } from 'node:timers/promises';

/** The share of wall time a pruning pass works, by default; it rests the remainder. */
export const DEFAULT_PRUNING_PACE = 0.25;

/** The longest one rest, in milliseconds (a slow step does not put the pass to sleep for long). */
const MAX_REST_MS = 1000;

/** The smallest pace a setting may ask: below it a pass would rest for hours over a backlog. */
export const MIN_PRUNING_PACE = 0.01;

/** A pace written as a plain decimal (`0.25`, `1`, `.5`); no hex, exponents or signs. */
const PACE_TEXT = /^(?:\d+(?:\.\d*)?|\.\d+)$/;

/**
 * A pace that is not a plain decimal from 0.01 to 1; its `code` is
 * `invalid_retention_pace`.
 */
export class InvalidPruningPaceError extends Error {
  readonly code = 'invalid_retention_pace';

  constructor(value: unknown, source: string) {
    super(
      `${source} must be a decimal from ${MIN_PRUNING_PACE} to 1 (the share of time pruning works), not "${String(value)}" (invalid_retention_pace)`,
    );
    this.name = 'InvalidPruningPaceError';
  }
}

/**
 * Reads a pace setting (`0.25`, `1`); absent or empty gives the default.
 * @throws InvalidPruningPaceError on anything else.
 */
export function parsePruningPace(text: string | undefined, source = '--retention-pace'): number {
  if (text === undefined || text.trim() === '') return DEFAULT_PRUNING_PACE;
  const trimmed = text.trim();
  const value = PACE_TEXT.test(trimmed) ? Number(trimmed) : Number.NaN;
  if (!(value >= MIN_PRUNING_PACE && value <= 1)) throw new InvalidPruningPaceError(text, source);
  return value;
}

/**
 * Keeps a pruning pass to a share of wall time: after each step (an export
 * and its delete, or a stamping unit) it rests long enough that the time
 * since the last rest, the step's work and whatever the kernel did meanwhile,
 * is at most `share` of the whole (resting at most one second at a time).
 * A long backlog then takes longer to prune, and the requests the kernel
 * serves meanwhile keep their latency: on SQLite each step holds the one
 * write path, and on any store its reads, exports and fsyncs take the
 * kernel's thread. The wait grows under load, since a busy kernel makes the
 * step itself take longer. A share of 1 never rests.
 */
export class PruningPace {
  private since: number;

  constructor(
    private readonly share: number,
    private readonly wait: (ms: number) => Promise<unknown> = sleep,
    /** A monotonic clock in milliseconds (tests give their own). */
    private readonly now: () => number = () => performance.now(),
  ) {
    if (!(share > 0 && share <= 1)) throw new InvalidPruningPaceError(share, 'the pruning pace');
    this.since = now();
  }

  /** Starts counting a pass's work from now (at the start of a pass). */
  start(): void {
    this.since = this.now();
  }

  /** Rests after a step, as the share asks; answers how long, in milliseconds. */
  async rest(): Promise<number> {
    const worked = this.now() - this.since;
    const ms = Math.min(MAX_REST_MS, (worked * (1 - this.share)) / this.share);
    if (ms >= 1) await this.wait(ms);
    this.since = this.now();
    return ms >= 1 ? ms : 0;
  }
}
