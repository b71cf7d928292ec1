/** One call the framework is about to run. */
export interface FrameworkCall {
  /** The tool's name as the model called it. */
  name: string;
  input: unknown;
  /** The framework's id for the call (the model's tool call id). */
  callId: string;
}

/**
 * What Airlock says about a call: `allow` (run it, now, once), `deny` (do
 * not; `reason` is what the model should read) or `wait` (it is parked for a
 * person; pause the framework and ask again after a decision).
 */
export interface CallVerdict {
  verdict: 'allow' | 'deny' | 'wait';
  reason: string | null;
  /** The Airlock row of the call (`t3`), null when the kernel named none. */
  taskKey: string | null;
  runId: string | null;
  /** The park waits for a person because an action contract's `requires_user` matched. */
  requiresUser: boolean;
  /**
   * On a deny the kernel answered with an error: its stable code, such as
   * `call_mismatch` (the call presented is not the one its row holds) or
   * `not_claimable` (the call was already granted to another check, or ran).
   */
  code?: string;
  /**
   * On an allow of a call a person approved with changes: the input to run
   * instead of the one the model composed (see {@link FrameworkSession.runGranted}).
   */
  updatedInput?: unknown;
  /**
   * On a `not_claimable` deny of a call that already ran: the output committed to its row. A
   * framework that runs the same call again (LangGraph's tool node on a resume) hands the model
   * this, and the call does not run twice.
   */
  ranOutput?: string;
}
