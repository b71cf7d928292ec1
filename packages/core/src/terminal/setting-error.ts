/**
 * A flag or environment variable of a command line whose value cannot be
 * used: one class for every reader here, each failure with its stable `code`,
 * so each CLI words the exit (its prefix, its exit code) its own way.
 */

/** What was wrong with the value. */
export type SettingErrorCode = 'invalid_kernel_url' | 'invalid_timeout';

/** A value a command cannot use; the message names `source` and what it accepts. */
export class SettingError extends Error {
  constructor(
    readonly code: SettingErrorCode,
    /** The flag or variable the value came from, such as `--url` or `AIRLOCK_URL`. */
    readonly source: string,
    message: string,
  ) {
    super(message);
    this.name = 'SettingError';
  }
}

/** Whether `error` is a {@link SettingError}, also one thrown by another copy of this package. */
export function isSettingError(error: unknown): error is SettingError {
  return (
    error instanceof SettingError ||
    (error instanceof Error &&
      error.name === 'SettingError' &&
      typeof (error as { code?: unknown }).code === 'string')
  );
}
