import type { Logger } from 'pino';

/** How long a start may go on after a stop was asked for before the process ends without it. */
export const START_STOP_GRACE_MS = 5_000;

/** A SIGTERM or SIGINT, heard from before `airlock serve` starts. */
export interface StopSignal {
  /** Resolves with the signal's name once one came. */
  readonly heard: Promise<string>;
  /** Whether one came already (during the start, when asked right after it). */
  readonly asked: boolean;
  /** The start is done: a signal from now on stops a serving kernel, and a grace running ends. */
  started(): void;
}

/**
 * Listens for SIGTERM and SIGINT from before the start, so that one sent
 * while the store opens, or the moment the banner is read, shuts the
 * kernel down cleanly (letting go of its data directory) instead of
 * killing it mid-start. A start that a stop was asked for during gets
 * {@link START_STOP_GRACE_MS} to finish (a database that never answers
 * would hold it forever); the process then exits 1. A second signal, of
 * either kind, kills at once: the first removes both listeners, so the
 * default action is back.
 */
export function listenForStop(logger: Logger, graceMs = START_STOP_GRACE_MS): StopSignal {
  let starting = true;
  let asked = false;
  let grace: ReturnType<typeof setTimeout> | undefined;
  const heard = new Promise<string>((resolve) => {
    const onTerm = () => hear('SIGTERM');
    const onInt = () => hear('SIGINT');
    const hear = (signal: string) => {
      // Either signal next, not only the same one, gets its default action: it kills.
      process.removeListener('SIGTERM', onTerm);
      process.removeListener('SIGINT', onInt);
      asked = true;
      if (starting) {
        logger.warn(
          { signal },
          `stop asked for while starting: stopping once started, or in ${graceMs} ms`,
        );
        grace = setTimeout(() => {
          logger.error({ signal }, `the start did not finish within ${graceMs} ms of ${signal}`);
          process.exit(1);
        }, graceMs);
      }
      resolve(signal);
    };
    process.on('SIGTERM', onTerm);
    process.on('SIGINT', onInt);
  });
  return {
    heard,
    get asked() {
      return asked;
    },
    started() {
      starting = false;
      clearTimeout(grace);
    },
  };
}
