import type { CallVerdict } from './session.js';

/** How long a verdict is held for its call: the kernel's default park clock, 24 hours. */
export const VERDICT_HOLD_MS = 24 * 60 * 60 * 1000;

interface Held {
  verdict: CallVerdict;
  heldAt: number;
}

/**
 * The verdicts an adapter asked Airlock for, each held by call id until the
 * framework runs the call (which takes it) or the adapter learns that the
 * framework never will (a refusal a person gave to a parked call).
 *
 * Bounded by age, not by count: a verdict nobody took within the park's own
 * 24 h clock (a park nobody resumed, a grant whose run was abandoned) is
 * forgotten. Forgetting never lets a call run unasked, since a call without a
 * held verdict asks Airlock again, and the clock is the kernel's own limit on
 * how long a call waits, where a count would be a guess at how many calls an
 * application keeps open at once.
 */
export class HeldVerdicts {
  /** Oldest first: `hold` deletes before it sets, so insertion order is the order of `heldAt`. */
  readonly #held = new Map<string, Held>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Holds the verdict of a call, replacing (and renewing) one held before. */
  hold(callId: string, verdict: CallVerdict): void {
    const now = this.now();
    this.#forgetExpired(now);
    this.#held.delete(callId);
    this.#held.set(callId, { verdict, heldAt: now });
  }

  /** True when a verdict is held for the call. */
  has(callId: string): boolean {
    this.#forgetExpired(this.now());
    return this.#held.has(callId);
  }

  /** The verdict held for the call, which is no longer held; undefined when none is. */
  take(callId: string): CallVerdict | undefined {
    this.#forgetExpired(this.now());
    const held = this.#held.get(callId);
    this.#held.delete(callId);
    return held?.verdict;
  }

  /** Drops the verdict of a call the framework will never run. */
  forget(callId: string): void {
    this.#held.delete(callId);
  }

  /** How many verdicts are held. */
  get size(): number {
    this.#forgetExpired(this.now());
    return this.#held.size;
  }

  #forgetExpired(now: number): void {
    for (const [callId, held] of this.#held) {
      if (now - held.heldAt < VERDICT_HOLD_MS) return;
      this.#held.delete(callId);
    }
  }
}
