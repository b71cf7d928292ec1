import { LeaseSchema } from '@airlock/core';
import { isLeaseLostError } from '../errors.js';
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
   * The earliest the lease can lapse, on this process's clock: the earlier of
   * its last grant's send time (or, for the claim, when it was set up here)
   * plus its length, and the `lease_until` the kernel answered for that grant.
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
}

/** Options of {@link holdLease}. */
export interface HoldLeaseOptions {
  operations: OperationsClient;
  address: ClaimAddress;
  leaseMs: number;
  /**
   * The claim's `lease_until` as the kernel granted it: a claim handed in
   * from elsewhere may have been granted long before its lease is set up here.
   */
  leaseUntil: number;
  /** Told once when a heartbeat answers that the claim no longer holds the row. */
  onLost: (error: Error) => void;
}

/**
 * Heartbeats a claim every third of its lease. A heartbeat that gets no
 * answer is let go (the next one may); one answered `lease_lost` calls `onLost`.
 */
export function holdLease(options: HoldLeaseOptions): Lease {
  const { operations, address, leaseMs } = options;
  let heldUntil = grantedUntil(Date.now(), leaseMs, options.leaseUntil);
  let lost = false;
  let stopped = false;
  let left = false;
  const beat = setInterval(
    () => {
      const sentAt = Date.now();
      operations.executor.heartbeat.mutate({ ...address, lease_ms: leaseMs }).then(
        (answer) => {
          heldUntil = Math.max(heldUntil, grantedUntil(sentAt, leaseMs, answer.lease_until));
        },
        (error: Error) => {
          if (!isLeaseLostError(error)) return;
          if (error.claim ? error.claim.committed : Date.now() < heldUntil) left = true;
          // An answer after stop may be about the commit that just landed: not a loss.
          if (lost || stopped) return;
          lost = true;
          options.onLost(error);
        },
      );
    },
    Math.max(250, Math.floor(leaseMs / 3)),
  );
  // Heartbeats alone never keep the process alive: the work or commit they serve does.
  (beat as { unref?: () => void }).unref?.();
  const stop = () => {
    stopped = true;
    clearInterval(beat);
  };
  return {
    mayHold: () => !lost && Date.now() < heldUntil,
    leftWhileHeld: () => left,
    heldUntil: () => heldUntil,
    stop,
    async release() {
      stop();
      if (lost) return;
      const shortened = operations.executor.heartbeat
        .mutate({ ...address, lease_ms: Math.min(SHORTEST_LEASE_MS, leaseMs) })
        .then(
          () => {},
          // Lost, committed meanwhile, or no kernel: the lease lapses by itself then.
          () => {},
        );
      let timer: ReturnType<typeof setTimeout> | undefined;
      const waited = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, RELEASE_WAIT_MS);
      });
      await Promise.race([shortened, waited]);
      clearTimeout(timer);
    },
  };
}

/**
 * When a grant lapses at the earliest, on this process's clock: the kernel
 * measures a lease from when it handled the grant, never before it was sent
 * from here, unless it granted less than asked (its longest lease) or the
 * grant is older than this process knows (a claim handed in). The kernel's
 * own `lease_until` covers both, read as if the clocks agreed: a kernel clock
 * behind this one only makes the answer earlier, which is safe; one ahead
 * leaves it at most as late as the local measure alone.
 */
function grantedUntil(sentAt: number, leaseMs: number, leaseUntil: number): number {
  return Math.min(sentAt + leaseMs, leaseUntil);
}
