import type { Logger } from 'pino';

/** How often a streak that goes on is logged again, by default. */
export const STREAK_REMINDER_MS = 60_000;

/**
 * The log of a loop that runs every few hundred milliseconds in the
 * background (the clocks sweep, the retention and notification passes): while
 * the store is down each of its passes fails the same way, and logging each
 * one would bury everything else (four error lines with a stack a second).
 *
 * A streak's first failure is logged (at error, or warn) with its error; while it goes
 * on, one reminder at most every `reminderMs` says how many failed since the
 * last line; the first success after it is logged at info with the count.
 */
export class FailureStreak {
  private failures = 0;
  private unlogged = 0;
  private lastLoggedAt = 0;
  private readonly reminderMs: number;
  private readonly now: () => number;
  private readonly level: 'error' | 'warn';

  constructor(
    private readonly logger: Logger,
    /** What fails, as the log names it: `clock sweep` logs `clock sweep failed`. */
    private readonly what: string,
    options: { reminderMs?: number; now?: () => number; level?: 'error' | 'warn' } = {},
  ) {
    this.level = options.level ?? 'error';
    this.reminderMs = options.reminderMs ?? STREAK_REMINDER_MS;
    this.now = options.now ?? Date.now;
  }

  /** Records a failed pass, logging it when it starts a streak or a reminder is due. */
  failed(error: unknown, fields: Record<string, unknown> = {}): void {
    this.failures += 1;
    const at = this.now();
    if (this.failures === 1) {
      this.lastLoggedAt = at;
      this.logger[this.level]({ ...fields, err: error }, `${this.what} failed`);
      return;
    }
    this.unlogged += 1;
    const sinceLastLine = at - this.lastLoggedAt;
    // A clock set back since the last line would otherwise silence the streak until it caught up.
    if (sinceLastLine >= 0 && sinceLastLine < this.reminderMs) return;
    this.logger[this.level](
      { ...fields, err: error, failures: this.failures, since_last_log: this.unlogged },
      `${this.what} still failing`,
    );
    this.lastLoggedAt = at;
    this.unlogged = 0;
  }

  /** Records a pass that worked, logging the end of a streak. */
  succeeded(): void {
    if (this.failures === 0) return;
    this.logger.info({ failures: this.failures }, `${this.what} recovered`);
    this.failures = 0;
    this.unlogged = 0;
  }
}
