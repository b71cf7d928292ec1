import { type ProgressLine, progressLine } from '@airlock/core';

/** Fewer files than this finish too fast for a progress line to help. */
const PROGRESS_MIN_FILES = 20;

/** A progress line on a terminal: `tick` after each item, `done` at the end. */
export interface Progress {
  tick(): void;
  done(): void;
}

const SILENT: Progress = { tick() {}, done() {} };

/**
 * A `rules-lint: linting file N of M` line redrawn in place on the terminal
 * while a long list of files is linted, erased when done. Silent when the
 * io draws no progress (a pipe, CI) or the list is short.
 */
export function fileProgress(io: { progress?(text: string): void }, total: number): Progress {
  const draw = io.progress;
  if (!draw || total < PROGRESS_MIN_FILES) return SILENT;
  // io.progress exists only where progress is allowed, so the line may always draw.
  const line: ProgressLine = progressLine({ isTTY: true, write: draw }, {}, 'rules-lint');
  let checked = 0;
  return {
    tick() {
      checked += 1;
      line.update(`linting file ${checked} of ${total}`, checked === total);
    },
    done() {
      line.done();
    },
  };
}
