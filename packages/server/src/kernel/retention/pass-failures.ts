import type { Logger } from 'pino';

/** What fails the retention passes while they keep failing (see {@link PassFailures}). */
export interface RetentionFailure {
  /** The last failed pass's error message. */
  readonly message: string;
  /** When the first pass of this failure failed (the store's clock, ms). */
  readonly since: number;
  /** How many passes in a row have failed so since. */
  readonly passes: number;
  /** The last failure's code (`retention_export_failed`, `ENOTDIR`); null when it has none. */
  readonly code: string | null;
  /** Its cause's code (`ENOSPC` under `retention_export_failed`); null when it has none. */
  readonly causeCode: string | null;
}

/** A code that names a failure (`ENOSPC`, a SQLSTATE), never text that could carry a path. */
const FAILURE_CODE = /^[A-Za-z0-9_]{1,64}$/;

/** The code an error (or its cause) carries, when it is one; null otherwise. */
function codeOf(error: unknown): string | null {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' && FAILURE_CODE.test(code) ? code : null;
}

/**
 * Which failure this is, for telling a repeat from a change: its code (`ENOTDIR`,
 * `retention_export_failed`), the file it names and its cause's code, else its message. A
 * message alone would differ between two passes failing alike (`wrote 0 of 812 bytes`).
 */
function failureKey(error: unknown): string {
  const { code, path, file, cause } = (error ?? {}) as Record<string, unknown>;
  if (typeof code !== 'string') return error instanceof Error ? error.message : String(error);
  const causeCode = (cause as { code?: unknown } | undefined)?.code;
  return JSON.stringify([code, path ?? file ?? null, causeCode ?? null]);
}

/**
 * The log of failed retention passes: a pass fails again at every interval (an export
 * directory made unwritable stays so), so a failure is logged when it begins and when it
 * changes, a repeat only at debug level, and its end once, as info; meanwhile
 * {@link PassFailures.current} tells what fails.
 */
export class PassFailures {
  private failing: (RetentionFailure & { key: string }) | null = null;

  constructor(
    private readonly logger: Logger,
    private readonly now: () => number,
  ) {}

  /** What fails the passes now; null while they succeed. */
  get current(): RetentionFailure | null {
    if (!this.failing) return null;
    const { message, since, passes, code, causeCode } = this.failing;
    return { message, since, passes, code, causeCode };
  }

  /** Notes a pass that failed with `error`. */
  failed(error: unknown): void {
    const key = failureKey(error);
    const message = error instanceof Error ? error.message : String(error);
    const code = codeOf(error);
    const causeCode = codeOf((error as { cause?: unknown } | null | undefined)?.cause);
    if (this.failing?.key === key) {
      this.failing = {
        ...this.failing,
        message,
        code,
        causeCode,
        passes: this.failing.passes + 1,
      };
      this.logger.debug(
        { err: error, failed_passes: this.failing.passes },
        'retention pass failed again',
      );
      return;
    }
    const before = this.failing;
    this.failing = { key, message, code, causeCode, since: this.now(), passes: 1 };
    this.logger.error(
      { err: error, ...(before ? { failed_passes: before.passes } : {}) },
      before
        ? 'retention pass failed otherwise than the passes before; logged again when it changes or clears'
        : 'retention pass failed; each pass tries again, and this is logged again when it changes or clears',
    );
  }

  /** Notes a pass that ran to its end: a failure before it has cleared. */
  passed(): void {
    if (!this.failing) return;
    const { passes, since } = this.failing;
    this.failing = null;
    this.logger.info(
      { failed_passes: passes, failing_since: new Date(since).toISOString() },
      'retention passes succeed again: the failure cleared',
    );
  }
}
