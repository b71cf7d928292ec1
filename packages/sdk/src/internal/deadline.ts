import { type Problem, ValidationError } from '../errors.js';

/** How long a request waits for the kernel's answer unless told otherwise. */
export const DEFAULT_TIMEOUT_MS = 30_000;

/** The longest timeout a timer can hold (about 24.8 days). */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/** Per-request options: abort it, or give it its own timeout. */
export interface RequestOptions {
  /** Aborts the request: it rejects with the signal's reason. */
  signal?: AbortSignal | undefined;
  /**
   * How long to wait for the answer, in milliseconds, overriding the
   * client's `timeoutMs`; null waits as long as it takes.
   */
  timeoutMs?: number | null | undefined;
}

/** A validation error made of problems the SDK found itself, before sending anything. */
export function invalidInput(problems: Problem[], cause?: unknown): ValidationError {
  return new ValidationError({
    code: 'invalid_input',
    detail: problems.map((problem) => problem.message).join('; '),
    problems,
    cause,
  });
}

/** The problem of a timeout that is neither null nor a whole positive number of milliseconds a timer can hold. */
export function timeoutProblem(timeoutMs: unknown, pointer: string): Problem | null {
  if (timeoutMs === undefined || timeoutMs === null) return null;
  if (typeof timeoutMs === 'number' && timeoutMs > 0 && timeoutMs <= MAX_TIMEOUT_MS) return null;
  return {
    code: 'invalid_input',
    pointer,
    message: `timeoutMs must be a number of milliseconds from 1 to ${MAX_TIMEOUT_MS}, or null for none`,
  };
}

/**
 * The body of a request as JSON.
 * @throws ValidationError `invalid_input` for a value JSON cannot carry (a BigInt, a cycle).
 */
export function jsonOf(value: unknown, what: string): string {
  try {
    return JSON.stringify(value);
  } catch (error) {
    const message = `${what} cannot be sent as JSON: ${(error as Error).message}`;
    throw invalidInput([{ code: 'invalid_input', pointer: '', message }], error);
  }
}

/**
 * Runs one request under the caller's signal and a timeout: `send` gets a
 * signal that aborts on either. The caller's abort rejects with its reason;
 * the timeout with the error `timedOut` makes.
 */
export async function underDeadline<T>(
  timeoutMs: number | null,
  signal: AbortSignal | undefined,
  timedOut: () => Error,
  send: (signal: AbortSignal | undefined) => Promise<T>,
): Promise<T> {
  if (signal?.aborted) throw signal.reason;
  if (timeoutMs === null && !signal) return send(undefined);
  const controller = new AbortController();
  const onAbort = () => controller.abort(signal?.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  const timer =
    timeoutMs === null ? undefined : setTimeout(() => controller.abort(timedOut()), timeoutMs);
  try {
    return await send(controller.signal);
  } catch (error) {
    throw controller.signal.aborted ? controller.signal.reason : error;
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}

/** Splits a method's options into the operation's fields and the request's own options. */
export function splitRequest<T extends RequestOptions>(
  options: T,
): [Omit<T, keyof RequestOptions>, RequestOptions] {
  const { signal, timeoutMs, ...fields } = options;
  return [fields, { signal, timeoutMs }];
}
