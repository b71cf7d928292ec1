/**
 * Progress lines for long commands (an audit export, a lint over many files,
 * the fault test, a benchmark): drawn in place on a terminal, never in CI
 * logs or pipes, so what lands in a file is exactly the command's report.
 * Pure: it writes only to the stream it is given.
 */

/** Where a progress line is drawn: standard error, as a stream or a stand-in. */
export interface ProgressStream {
  isTTY?: boolean;
  write(text: string): unknown;
}

/** A line redrawn in place: `update` as work advances, `done` erases it. */
export interface ProgressLine {
  /** Redraws the line; throttled unless `force` (the last item of a list, say). */
  update(text: string, force?: boolean): void;
  done(): void;
}

/** At most this often a line is redrawn, in milliseconds. */
const REDRAW_MS = 100;
const ERASE_LINE = '\r\u001b[2K';

const SILENT: ProgressLine = { update() {}, done() {} };

/**
 * Whether a command may draw progress: only when the stream is a terminal and
 * the environment is not CI (`CI=true` or `CI=1`, as CI services set it).
 */
export function progressAllowed(
  stream: { isTTY?: boolean },
  env: Record<string, string | undefined>,
): boolean {
  return stream.isTTY === true && env.CI !== 'true' && env.CI !== '1';
}

/**
 * A progress line prefixed with `label: `, or a silent one where progress is
 * not allowed. Redraws are throttled to one per
 * 100 ms; the first and every forced one draw.
 */
export function progressLine(
  stream: ProgressStream,
  env: Record<string, string | undefined>,
  label: string,
  now: () => number = Date.now,
): ProgressLine {
  if (!progressAllowed(stream, env)) return SILENT;
  let drawnAt = Number.NEGATIVE_INFINITY;
  let drawn = false;
  return {
    update(text, force = false) {
      const at = now();
      if (!force && at - drawnAt < REDRAW_MS) return;
      drawnAt = at;
      drawn = true;
      stream.write(`${ERASE_LINE}${label}: ${text}`);
    },
    done() {
      if (drawn) stream.write(ERASE_LINE);
      drawn = false;
    },
  };
}

/** Seconds since `startedAt`, with one decimal: `12.3 s`. */
export function elapsedSince(startedAt: number, now: number = Date.now()): string {
  return `${((now - startedAt) / 1000).toFixed(1)} s`;
}

/** A progress line that names the step a long command is in and how long it has run. */
export interface StageTicker {
  /** Names the current step and redraws at once. */
  stage(text: string): void;
  /** Erases the line before the command prints a line of its own; the next tick redraws it. */
  clear(): void;
  /** Stops the clock and erases the line. */
  done(): void;
}

/**
 * A `label: <step>, 12.3 s` line, redrawn every `intervalMs` while the step
 * lasts so a slow step still shows the clock moving; silent (and with no
 * timer) where progress is not allowed.
 */
export function stageTicker(
  stream: ProgressStream,
  env: Record<string, string | undefined>,
  label: string,
  intervalMs = 250,
): StageTicker {
  if (!progressAllowed(stream, env)) return { stage() {}, clear() {}, done() {} };
  const line = progressLine(stream, env, label);
  const startedAt = Date.now();
  let current = 'starting';
  const draw = () => line.update(`${current}, ${elapsedSince(startedAt)}`, true);
  const timer = setInterval(draw, intervalMs);
  // A ticker never keeps a finished command alive.
  (timer as { unref?: () => void }).unref?.();
  return {
    stage(text) {
      current = text;
      draw();
    },
    clear() {
      line.done();
    },
    done() {
      clearInterval(timer);
      line.done();
    },
  };
}
