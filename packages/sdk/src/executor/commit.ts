import {
  isAirlockError,
  isConnectionError,
  isDeadlineExceededError,
  isLeaseLostError,
  isRequestRefusedError,
  isValidationError,
} from '../errors.js';
import type { OperationsClient } from '../internal/transport.js';
import type { TaskView } from '../views.js';
import type { ClaimAddress, Lease } from './lease.js';
import { failed, type Outcome, ranView } from './outcome.js';

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

/**
 * How many leases' time an outcome's commit is retried from its first
 * attempt (heartbeats hold the row meanwhile): past it the outcome is given
 * up on, so a commit that can never arrive while heartbeats do cannot hold
 * its row forever.
 */
const RETRY_WINDOW_LEASES = 3;

/**
 * How many times an outcome is sent that timed out on the way (no answer
 * within `timeoutMs`, the kernel's `request_timeout`, a proxy's 504): a body
 * too slow to arrive once mostly is again.
 */
const SLOW_ATTEMPTS = 2;

/** The failure committed instead of an outcome that could not be delivered. */
export const UNDELIVERABLE_CODE = 'result_undeliverable';

const FIRST_BACKOFF_MS = 100;
const LONGEST_BACKOFF_MS = 2000;

/** Options of {@link commitOutcome}. */
export interface CommitOptions {
  operations: OperationsClient;
  address: ClaimAddress;
  /** The claimed row: what a commit known to have landed answers as, with its outcome. */
  task: TaskView;
  outcome: Outcome;
  /** The claim's lease, heartbeated meanwhile. */
  lease: Pick<Lease, 'mayHold' | 'leftWhileHeld' | 'heldUntil'>;
  leaseMs: number;
  /**
   * Aborted when the executor closes with `abort`: no retry is sent or waited for (the first
   * attempt, and the failure that replaces an outcome the kernel refused as such, still are).
   */
  signal: AbortSignal;
  /** Told when the outcome is given up on and the failure `result_undeliverable` is committed instead. */
  onUndeliverable: (error: Error) => void;
}

/**
 * Commits a row's outcome so that its tool never has to run again for it.
 * An outcome the kernel refuses as invalid or too large is committed once
 * more as the failure `invalid_result` or `result_too_large`. A kernel that
 * cannot be reached or cannot take it now (a restart, a 5xx) is tried again
 * with backoff while the lease may hold, for at most three leases' time and
 * two attempts that time out; then the failure `result_undeliverable` is
 * committed instead (the tool ran: its row is not handed out to run again),
 * tried for one more lease. A retry the kernel refuses with `lease_lost`
 * saying the row holds an outcome committed with this claim means an
 * earlier attempt landed: the row is answered as this executor sent it.
 * @returns the row as committed, or null when the signal aborted before a retry.
 * @throws LeaseLostError when the claim no longer holds the row; the last
 * error when the lease lapsed while the kernel could not be reached, or when
 * not even the failure could be delivered (the lease then lapses and the row
 * is handed out again); any other refusal (the row or run is gone).
 */
export async function commitOutcome(options: CommitOptions): Promise<TaskView | null> {
  const { operations, address, signal, lease } = options;
  let outcome = options.outcome;
  /** The outcomes sent whose fate is unknown: each may have landed. */
  const unanswered: Outcome[] = [];
  let replaced = false;
  let undeliverable = false;
  let internalFailures = 0;
  let slowFailures = 0;
  let giveUpAt = performance.now() + RETRY_WINDOW_LEASES * options.leaseMs;
  for (let attempt = 0; ; attempt++) {
    try {
      return await operations.executor.commit.mutate({ ...address, ...outcome });
    } catch (error) {
      const landed = landedOutcome(error, unanswered, lease);
      if (landed) return ranView(options.task, landed);
      const replacement = replaced ? null : refusedOutcome(error);
      if (replacement) {
        outcome = replacement;
        replaced = true;
        continue;
      }
      if (!retryable(error)) throw error;
      if (signal.aborted) return null;
      unanswered.push(outcome);
      if (isAirlockError(error) && error.code === 'internal' && (error.status ?? 500) < 502) {
        internalFailures++;
      }
      if (slow(error)) slowFailures++;
      // A heartbeat found the row gone while it was held: one more attempt learns whether it was this commit.
      const probe = lease.leftWhileHeld() && unanswered.length === 1;
      if (internalFailures > INTERNAL_RETRIES || (!lease.mayHold() && !probe)) throw error;
      if (!probe && (slowFailures >= SLOW_ATTEMPTS || performance.now() >= giveUpAt)) {
        if (undeliverable) throw error;
        options.onUndeliverable(error as Error);
        outcome = failed(UNDELIVERABLE_CODE, undeliverableDetail(outcome, error, options.leaseMs));
        undeliverable = true;
        slowFailures = 0;
        giveUpAt = performance.now() + options.leaseMs;
        continue;
      }
      await pause(backoff(attempt), signal);
      if (signal.aborted) return null;
    }
  }
}

/**
 * The outcome that already landed when the kernel refuses a retry with
 * `lease_lost` because the row holds an outcome committed with this claim
 * (the refusal's `claim.committed`). Null otherwise, or when no attempt is
 * unanswered.
 */
function landedOutcome(
  error: unknown,
  unanswered: readonly Outcome[],
  lease: CommitOptions['lease'],
): Outcome | null {
  if (unanswered.length === 0 || !isLeaseLostError(error)) return null;
  let state: string | undefined;
  if (error.claim) state = error.claim.committed ? error.claim.task_state : undefined;
  else state = committedStateFromDetail(error.detail, lease);
  if (state === undefined) return null;
  // A failed hook result may have landed as succeeded and been failed by the kernel since.
  return unanswered.findLast((sent) => sent.outcome === state) ?? unanswered.at(-1) ?? null;
}

/**
 * For a kernel whose `lease_lost` carries no `claim` (older than this SDK),
 * kept only as that fallback: the state its detail names when it refused
 * because the row is committed (`task … is succeeded; commit needs
 * claimed`), when no other claim can have taken the row: the refusal came
 * before the lease could lapse, or a heartbeat found the row gone before
 * then. Only a commit with this claim moves a claimed row to succeeded or
 * failed (a cancel or a hook timeout reaches other states).
 */
function committedStateFromDetail(
  detail: string,
  lease: CommitOptions['lease'],
): string | undefined {
  const state = /\bis (succeeded|failed); commit needs claimed$/.exec(detail)?.[1];
  if (state === undefined) return undefined;
  if (!lease.leftWhileHeld() && performance.now() >= lease.heldUntil()) return undefined;
  return state;
}

/** Whether an error says the commit took too long on its way rather than found no kernel. */
function slow(error: unknown): boolean {
  if (isDeadlineExceededError(error)) return true;
  return isAirlockError(error) && (error.code === 'request_timeout' || error.status === 504);
}

/** Why an outcome was given up on, as the failure's detail. */
function undeliverableDetail(outcome: Outcome, error: unknown, leaseMs: number): string {
  const what = outcome.outcome === 'succeeded' ? 'result' : `failure ${outcome.error.code}`;
  const why = error instanceof Error ? error.message : String(error);
  return `the tool ran, but its ${what} could not be committed within ${
    RETRY_WINDOW_LEASES * leaseMs
  } ms or ${SLOW_ATTEMPTS} attempts that timed out (last: ${why})`;
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
