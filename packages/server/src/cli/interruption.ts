/** The signals that ask a backup or restore to stop: Ctrl-C, a service manager's stop, a closed terminal. */
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

type StopSignal = (typeof STOP_SIGNALS)[number];

/** The shell's exit code for a command a signal stopped: 128 and the signal's number. */
const EXIT_CODES: Record<StopSignal, number> = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 };

/** A stop asked for by a signal, thrown at the next point the command can stop without leaving anything half made. */
export class Interrupted extends Error {
  readonly code = 'interrupted';
  constructor(readonly signal: StopSignal) {
    super(`stopped by ${signal}`);
    this.name = 'Interrupted';
  }

  /** 130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP, as a shell reports a command a signal ended. */
  get exitCode(): number {
    return EXIT_CODES[this.signal];
  }
}

/** Where the stop signals come from: the process, or in a test an emitter of its own. */
export type SignalSource = Pick<NodeJS.EventEmitter, 'on' | 'removeListener'>;

/** What {@link holdStopSignals} answers. */
export interface StopSignals {
  /** @throws Interrupted once a stop signal came. */
  check(): void;
  /** Gives the signals their default action back. */
  release(): void;
}

/**
 * Holds SIGINT, SIGTERM and SIGHUP while a command writes files that must
 * not be left half made (a backup's copy, a restore's staged store): the
 * first one is kept for the command to stop at its next {@link
 * StopSignals.check}, where it removes what it made, instead of the process
 * dying mid-copy. A second signal, of any of them, kills at once: the first
 * gives them their default action back. A test passes its own `source`: a
 * signal emitted on the test runner's process reaches the runner's handlers too.
 */
export function holdStopSignals(source: SignalSource = process): StopSignals {
  let heard: StopSignal | null = null;
  const listeners = STOP_SIGNALS.map((signal) => {
    const listener = () => {
      heard ??= signal;
      release();
    };
    source.on(signal, listener);
    return { signal, listener };
  });
  const release = () => {
    for (const { signal, listener } of listeners) source.removeListener(signal, listener);
  };
  return {
    check() {
      if (heard) throw new Interrupted(heard);
    },
    release,
  };
}
