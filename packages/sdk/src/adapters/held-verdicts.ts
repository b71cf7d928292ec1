import { bindVerdict } from './call-binding.js';
import type { CallVerdict, FrameworkCall } from './session.js';

/** How long a verdict is held for its call: the kernel's default park clock, 24 hours. */
export const VERDICT_HOLD_MS = 24 * 60 * 60 * 1000;

/** A verdict held for its call. */
export interface Held {
  /** The call as Airlock checked it: the verdict is good for this tool and input only. */
  call: FrameworkCall;
  verdict: CallVerdict;
  heldAt: number;
}

/**
 * The verdicts an adapter asked Airlock for, each held by call id, with the
 * call as it was checked, until the framework runs the call (which takes it)
 * or the adapter learns that the framework never will (a refusal a person
 * gave to a parked call).
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

  /** Holds the verdict of a call as it was checked, replacing (and renewing) one held before. */
  hold(call: FrameworkCall, verdict: CallVerdict): void {
    const now = this.now();
    this.#forgetExpired(now);
    this.#held.delete(call.callId);
    this.#held.set(call.callId, { call, verdict, heldAt: now });
  }

  /** True when a verdict is held for the call id. */
  has(callId: string): boolean {
    this.#forgetExpired(this.now());
    return this.#held.has(callId);
  }

  /**
   * The verdict held for the call about to run, which is no longer held;
   * undefined when none is. A call presented with another tool or input than
   * the one checked under its id gets a `call_mismatch` refusal instead.
   */
  take(call: FrameworkCall): CallVerdict | undefined {
    this.#forgetExpired(this.now());
    const held = this.#held.get(call.callId);
    this.#held.delete(call.callId);
    return held && bindVerdict(held.call, held.verdict, call);
  }

  /** Drops the verdict of a call the framework will never run, or will ask Airlock about again. */
  forget(callId: string): void {
    this.#held.delete(callId);
  }

  /**
   * The grants held (verdict `allow`), no longer held: calls Airlock granted whose run the
   * framework has not begun; only those of the call ids `only` accepts when it is given. Parks
   * and refusals stay held.
   */
  takeGrants(only: (callId: string) => boolean = () => true): Held[] {
    this.#forgetExpired(this.now());
    const grants = [...this.#held.values()].filter(
      (held) => held.verdict.verdict === 'allow' && only(held.call.callId),
    );
    for (const held of grants) this.#held.delete(held.call.callId);
    return grants;
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
