/** Fewer files than this finish too fast for a progress line to help. */
const PROGRESS_MIN_FILES = 20;
/** At most this often the line is redrawn, in milliseconds. */
const REDRAW_MS = 100;

/** A progress line on a terminal: `tick` after each item, `done` at the end. */
export interface Progress {
  tick(): void;
  done(): void;
}

const SILENT: Progress = { tick() {}, done() {} };

/**
 * A `rules-lint: linting file N of M` line redrawn in place on the terminal
 * while a long list of files is linted, erased when done. Silent when the
 * io draws no progress or the list is short.
 */
export function fileProgress(io: { progress?(text: string): void }, total: number): Progress {
  const draw = io.progress;
  if (!draw || total < PROGRESS_MIN_FILES) return SILENT;
  let checked = 0;
  let drawnAt = 0;
  return {
    tick() {
      checked += 1;
      const now = Date.now();
      if (now - drawnAt < REDRAW_MS && checked < total) return;
      drawnAt = now;
      draw(`\rrules-lint: linting file ${checked} of ${total}`);
    },
    done() {
      draw('\r\u001b[2K');
    },
  };
}
