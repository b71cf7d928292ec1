import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';

/** The machine's wall clock and a monotonic clock beside it, both in milliseconds. */
export interface ClockReadings {
  wall(): number;
  monotonic(): number;
}

/** The system's clocks: Date.now, and performance.now, which no clock setting moves. */
export const SYSTEM_CLOCKS: ClockReadings = {
  wall: () => Date.now(),
  monotonic: () => performance.now(),
};

/** How far the wall clock may run ahead of the monotonic one between two passes before it is a jump. */
const JUMP_TOLERANCE_MS = 60_000;

/**
 * How far the machine's clock jumped forward while this process ran, against the time that
 * passed (a monotonic clock): a pass prunes by the store's clock less that, so a clock set a
 * year ahead (by hand, by a misconfigured time server) does not delete rows younger than their
 * window. A clock set back again takes its jump back. A suspended machine's sleep counts as a
 * jump too (the monotonic clock stops meanwhile): pruning then lags by it, keeping rows longer,
 * never shorter. A process that starts with its clock ahead has nothing to compare it with.
 */
export class ClockJumps {
  private last: { wall: number; monotonic: number } | null = null;
  private ahead = 0;

  constructor(
    private readonly clocks: ClockReadings,
    private readonly logger: Logger,
  ) {}

  /** Reads both clocks and answers how far the wall clock now runs ahead of the time that passed. */
  read(): number {
    const now = { wall: this.clocks.wall(), monotonic: this.clocks.monotonic() };
    const last = this.last;
    this.last = now;
    if (!last) return this.ahead;
    const drift = now.wall - last.wall - (now.monotonic - last.monotonic);
    if (drift > JUMP_TOLERANCE_MS) {
      this.ahead += drift;
      this.logger.warn(
        { jumpMs: Math.round(drift), behindClockMs: Math.round(this.ahead) },
        'retention: the clock jumped ahead of the time that passed; pruning goes by the time that passed, behind the clock, until the kernel restarts or the clock is set back',
      );
    } else if (drift < 0 && this.ahead > 0) {
      const before = this.ahead;
      this.ahead = Math.max(0, this.ahead + drift);
      if (this.ahead === 0 && before > 0) {
        this.logger.info('retention: the clock was set back; pruning goes by the clock again');
      }
    }
    return this.ahead;
  }
}
