import { LeaseSchema } from '@airlock/core';
import { AirlockError, isLeaseLostError } from '../errors.js';
import type { OperationsClient } from '../internal/transport.js';

/** The address a claim's heartbeats and commit present. */
export interface ClaimAddress {
  run_id: string;
  task_key: string;
  claim_id: string;
}

/** The shortest lease the kernel grants: what a release asks for. */
const SHORTEST_LEASE_MS = LeaseSchema.unwrap().minValue ?? 1000;

/** How long a release may take before close stops waiting for it. */
const RELEASE_WAIT_MS = 2000;

/** What a hand-back may answer when there is nothing left to hand back: the lease is not shortened. */
const HANDED_BACK_ANYWAY: readonly string[] = ['lease_lost', 'task_not_found', 'run_not_running'];

/** A claim's lease, kept alive by heartbeats while its row runs and commits. */
export interface Lease {
  /** Whether the lease may still hold: not reported lost, and {@link Lease.heldUntil} not passed. */
  mayHold(): boolean;
  /**
   * Whether the row is known to have left this claim with no other claim
   * taking it: a heartbeat was answered `lease_lost` saying the row was
   * committed with this claim, or, from a kernel that does not say, before
   * {@link Lease.heldUntil} (the row was then committed with this claim,
   * canceled or timed out).
   */
  leftWhileHeld(): boolean;
  /**
   * The earliest the lease can lapse, on this process's monotonic clock
   * (`performance.now()`): when the grant last answered (the claim, then
   * each heartbeat) was asked for, plus the lease the kernel granted (see
   * {@link grantedUntil}).
   */
  heldUntil(): number;
  /** Stops heartbeating. */
  stop(): void;
  /**
   * Stops heartbeating and shortens the lease to the shortest the kernel
   * grants, so the row is handed out again within about a second instead of
   * a whole lease; resolves within two seconds even when the kernel does not answer.
   */
  release(): Promise<void>;
  /**
   * For a claim whose tool never started: stops heartbeating and hands the claim back
   * (`executor.release`), so the row is runnable again at once and the kernel never reads it
   * as a lapse (which fails a tool the manifest does not declare safe to run again). A kernel
   * that does not answer the release (older than this SDK, or out of reach) gets
   * {@link Lease.release}'s shortened lease instead; resolves within two seconds either way.
   */
  handBack(): Promise<void>;
}

/** A lease as the kernel answered a claim or heartbeat; `lease_ms` is missing from a kernel older than this SDK. */
export interface GrantAnswer {
  lease_until: number;
  lease_ms?: number | undefined;
}

/** Options of {@link holdLease}. */
export interface HoldLeaseOptions {
  operations: OperationsClient;
  address: ClaimAddress;
  /** The lease each heartbeat asks for (and the claim asked for, when it was asked from here). */
  leaseMs: number;
  /** The claim's lease as the kernel granted it. */
  claim: GrantAnswer;
  /**
   * When the request that got the claim was sent, on `performance.now()`'s
   * clock; null for a claim granted elsewhere at a time this process does not know.
   */
  sentAt: number | null;
  /** Told once when a heartbeat answers that the claim no longer holds the row. */
  onLost: (error: Error) => void;
  /**
   * Told once when {@link Lease.heldUntil} passes with no heartbeat answered to renew it (the
   * kernel out of reach, its answers lost): the kernel may have handed the row to another
   * claim by then. Heartbeats go on until the lease is stopped (a commit under way may still
   * be answered).
   */
  onLapsed?: ((heldUntil: number) => void) | undefined;
}

/**
 * Heartbeats a claim every third of the lease the kernel granted. A heartbeat that gets no
 * answer is let go (the next one may); one answered `lease_lost` calls `onLost`.
 */
export function holdLease(options: HoldLeaseOptions): Lease {
  const { operations, address, leaseMs } = options;
  let heldUntil = grantedUntil({
    sentAt: options.sentAt ?? performance.now(),
    askedHere: options.sentAt !== null,
    askedMs: leaseMs,
    answer: options.claim,
  });
  let lost = false;
  let stopped = false;
  let left = false;
  // The lease the kernel last granted (it caps what is asked for): heartbeats go every third
  // of it, so a capped lease is renewed in time, not every third of what was asked for.
  let grantedMs = Math.min(leaseMs, Math.max(0, heldUntil - performance.now()));
  let timer: ReturnType<typeof setTimeout> | undefined;
  let lapseTimer: ReturnType<typeof setTimeout> | undefined;
  const watchIn = (ms: number) => {
    lapseTimer = setTimeout(watch, ms);
    (lapseTimer as { unref?: () => void }).unref?.();
  };
  // Fires at heldUntil; a heartbeat answered meanwhile moved it later, and the watch goes on.
  const watch = () => {
    if (stopped || lost) return;
    const left = heldUntil - performance.now();
    if (left > 0) {
      watchIn(Math.ceil(left));
      return;
    }
    options.onLapsed?.(heldUntil);
  };
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(beat, Math.max(250, Math.floor(grantedMs / 3)));
    // Heartbeats alone never keep the process alive: the work or commit they serve does.
    (timer as { unref?: () => void }).unref?.();
  };
  const beat = () => {
    const sentAt = performance.now();
    operations.executor.heartbeat
      .mutate({ ...address, lease_ms: leaseMs })
      .then(
        (answered: unknown) => {
          const answer = grantOf(answered);
          // No lease in the answer (an empty body from a proxy, say) renews nothing: the lease
          // holds as it was, and the next beat asks again (the lapse watch still runs).
          if (!answer) return;
          // The kernel set the lease anew from this heartbeat (maybe shorter than a handed-in
          // claim's), and one it handles later ends no earlier: this answer replaces the bound.
          heldUntil = grantedUntil({ sentAt, askedHere: true, askedMs: leaseMs, answer });
          grantedMs = Math.min(leaseMs, answer.lease_ms ?? Math.max(0, heldUntil - sentAt));
        },
        (error: Error) => {
          if (!isLeaseLostError(error)) return;
          if (error.claim ? error.claim.committed : performance.now() < heldUntil) left = true;
          // An answer after stop may be about the commit that just landed: not a loss.
          if (lost || stopped) return;
          lost = true;
          options.onLost(error);
        },
      )
      // Nothing here may end the process: a throw from onLost's listener is not the lease's to report.
      .catch(() => {});
    // The next beat does not wait for this one's answer: a kernel slow to answer still gets it.
    schedule();
  };
  const stop = () => {
    stopped = true;
    clearTimeout(timer);
    clearTimeout(lapseTimer);
  };
  schedule();
  // Never from inside holdLease: the caller first learns whether the lease already lapsed.
  watchIn(Math.max(0, Math.ceil(heldUntil - performance.now())));
  return {
    mayHold: () => !lost && performance.now() < heldUntil,
    leftWhileHeld: () => left,
    heldUntil: () => heldUntil,
    stop,
    async release() {
      stop();
      if (lost) return;
      await withinReleaseWait(shorten());
    },
    async handBack() {
      stop();
      if (lost) return;
      const handedBack = operations.executor.release.mutate(address).then(
        () => {},
        (error: unknown) => {
          // The claim no longer holds the row, or the run ended: nothing is left to hand back.
          if (error instanceof AirlockError && HANDED_BACK_ANYWAY.includes(error.code)) return;
          // A kernel without the operation, or none answering: shorten the lease instead.
          return shorten();
        },
      );
      await withinReleaseWait(handedBack);
    },
  };

  /** Asks for the shortest lease; lost, committed meanwhile, or no kernel: it lapses by itself then. */
  function shorten(): Promise<void> {
    return operations.executor.heartbeat
      .mutate({ ...address, lease_ms: Math.min(SHORTEST_LEASE_MS, leaseMs) })
      .then(
        () => {},
        () => {},
      );
  }
}

/** Resolves when `work` does, or after {@link RELEASE_WAIT_MS}, whichever comes first. */
async function withinReleaseWait(work: Promise<void>): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const waited = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, RELEASE_WAIT_MS);
  });
  await Promise.race([work, waited]);
  clearTimeout(timer);
}

/**
 * A heartbeat's answer as a grant: a finite `lease_until` and, when given, a
 * positive `lease_ms`; null for anything else (no answer to renew from).
 */
export function grantOf(answer: unknown): GrantAnswer | null {
  if (typeof answer !== 'object' || answer === null) return null;
  const { lease_until, lease_ms } = answer as { lease_until?: unknown; lease_ms?: unknown };
  if (typeof lease_until !== 'number' || !Number.isFinite(lease_until)) return null;
  if (lease_ms === undefined) return { lease_until };
  if (typeof lease_ms !== 'number' || !Number.isFinite(lease_ms) || lease_ms <= 0) return null;
  return { lease_until, lease_ms };
}

/**
 * When a grant lapses at the earliest, on this process's monotonic clock.
 * The kernel measures the lease it granted (`lease_ms`) from when it handled
 * the request, never before the request was sent from here: a grant asked
 * for from here lapses no earlier than its send time plus that lease,
 * whatever the two wall clocks say. For a grant asked for elsewhere (a
 * claim handed in) or a kernel that does not answer `lease_ms`, the
 * kernel's `lease_until` is read on this wall clock as if the clocks agreed
 * and bounds the measure: a kernel clock ahead of this one by d can then
 * leave the lease believed held up to d too long (docs/executors.md).
 */
function grantedUntil(grant: {
  sentAt: number;
  askedHere: boolean;
  askedMs: number;
  answer: GrantAnswer;
}): number {
  const { sentAt, answer } = grant;
  if (grant.askedHere && answer.lease_ms !== undefined) return sentAt + answer.lease_ms;
  const kernelSays = answer.lease_until - Date.now() + performance.now();
  return Math.min(sentAt + (answer.lease_ms ?? grant.askedMs), kernelSays);
}

/**
 * How long from now, in milliseconds, until a claimed row's deadline
 * (`deadline_at`, on the kernel's clock), or null when it has none. The
 * kernel's clock at the claim is the claim's `lease_until` less the lease
 * it granted, and that moment came no earlier than the claim was asked for
 * here: counted from the send time on this process's monotonic clock, the
 * deadline falls no later than the kernel's, whatever the two wall clocks
 * say. A claim handed in without its send time, or from a kernel that does
 * not answer `lease_ms`, reads `deadline_at` on this wall clock.
 */
export function untilDeadline(
  claim: GrantAnswer & { task: { deadline_at: number | null } },
  sentAt: number | null,
): number | null {
  const { deadline_at } = claim.task;
  if (deadline_at === null) return null;
  if (sentAt === null || claim.lease_ms === undefined) return Math.max(0, deadline_at - Date.now());
  const kernelNowAtClaim = claim.lease_until - claim.lease_ms;
  return Math.max(0, deadline_at - kernelNowAtClaim - (performance.now() - sentAt));
}
