import {
  isAirlockError,
  isConnectionError,
  isRequestRefusedError,
  isValidationError,
} from '../errors.js';
import type { OperationsClient } from '../internal/transport.js';
import type { TaskView } from '../views.js';
import type { ClaimAddress } from './lease.js';
import { failed, type Outcome } from './outcome.js';

/** Codes of a kernel that cannot take the commit now but may in a moment. */
const TRANSIENT_CODES: ReadonlySet<string> = new Set([
  'unavailable',
  'store_unavailable',
  'migrations_pending',
  'rate_limited',
  'request_timeout',
]);

/** How often an `internal` answer is tried again: it may be a kernel bug that answers so every time. */
const INTERNAL_RETRIES = 3;

const FIRST_BACKOFF_MS = 100;
const LONGEST_BACKOFF_MS = 2000;

/** Options of {@link commitOutcome}. */
export interface CommitOptions {
  operations: OperationsClient;
  address: ClaimAddress;
  outcome: Outcome;
  /** Whether the claim's lease may still hold (its heartbeats go on meanwhile). */
  mayHold: () => boolean;
  /** Aborted when the executor closes with `abort`: nothing more is sent. */
  signal: AbortSignal;
}

/**
 * Commits a row's outcome so that its tool never has to run again for it.
 * An outcome the kernel refuses as invalid or too large is committed once
 * more as the failure `invalid_result` or `result_too_large`. A kernel that
 * cannot be reached or cannot take it now (a restart, a 5xx) is tried again
 * with backoff while the lease may hold.
 * @returns the row as committed, or null when the signal aborted first.
 * @throws LeaseLostError when the claim no longer holds the row; the last
 * error when the lease lapsed while the kernel could not be reached; any
 * other refusal (the row or run is gone).
 */
export async function commitOutcome(options: CommitOptions): Promise<TaskView | null> {
  const { operations, address, signal } = options;
  let outcome = options.outcome;
  let replaced = false;
  let internalFailures = 0;
  for (let attempt = 0; ; attempt++) {
    if (signal.aborted) return null;
    try {
      return await operations.executor.commit.mutate({ ...address, ...outcome });
    } catch (error) {
      const replacement = replaced ? null : refusedOutcome(error);
      if (replacement) {
        outcome = replacement;
        replaced = true;
        continue;
      }
      if (isAirlockError(error) && error.code === 'internal' && (error.status ?? 500) < 502) {
        internalFailures++;
      }
      if (!retryable(error) || internalFailures > INTERNAL_RETRIES || !options.mayHold()) {
        throw error;
      }
      await pause(backoff(attempt), signal);
    }
  }
}

/**
 * The failure to commit instead of an outcome the kernel refused as such:
 * null when the refusal is about something else.
 */
function refusedOutcome(error: unknown): Outcome | null {
  if (isRequestRefusedError(error) && error.code === 'payload_too_large') {
    return failed('result_too_large', `the kernel refused the tool's result: ${error.detail}`);
  }
  if (isValidationError(error)) {
    return failed('invalid_result', `the kernel refused the tool's outcome: ${error.detail}`);
  }
  // Not even sent: the body could not be made (JSON.stringify threw).
  if (!isAirlockError(error)) {
    return failed('invalid_result', `the tool's outcome could not be sent: ${String(error)}`);
  }
  return null;
}

/** Whether a failed commit may land when sent again. */
function retryable(error: unknown): boolean {
  if (isConnectionError(error)) return true;
  if (!isAirlockError(error)) return false;
  // A proxy's 502/503/504 in front of a restarting kernel reads as `internal`: its status tells.
  if (error.status !== null && error.status >= 502) return true;
  return TRANSIENT_CODES.has(error.code) || error.code === 'internal';
}

/** 100 ms, doubling to 2 s, each with jitter so executors that lost one kernel do not return in step. */
function backoff(attempt: number): number {
  const ceiling = Math.min(LONGEST_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** Math.min(attempt, 10));
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

/** Waits, or less when the signal aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}
