import type { IncomingMessage, ServerResponse } from 'node:http';

/** One call, as its spans name it. */
export interface CallAddress {
  workspaceId: string;
  runId: string;
  key: string;
}

/**
 * What the kernel tells the tracer about a call's path: the request that
 * brought it, the approval stage, the park and the person's decision, the
 * claim and the commit. The kernel holds it as `ctx.tracing`, null when
 * tracing is off, so nothing of OpenTelemetry is loaded or run then.
 */
export interface CallTracing {
  /**
   * Runs a request's handler inside a server span that continues the
   * request's W3C `traceparent` (a new trace without one).
   */
  serve(req: IncomingMessage, res: ServerResponse, handle: () => void): void;
  /** The approval stage decided a call; `startedAt` is when it began (epoch ms). */
  stageDecided(
    call: CallAddress,
    decided: { startedAt: number; outcome: string; layer: string; toolName: string },
  ): void;
  /** A person decided a parked call (or answered a question) that waited since `parkedAt` (epoch ms). */
  personDecided(
    call: CallAddress,
    decided: { parkedAt: number; startedAt: number; verb: string; parked: boolean },
  ): void;
  /** An executor claimed or committed a call; `startedAt` is when its transaction began (epoch ms). */
  callStep(
    call: CallAddress,
    step: 'claim' | 'commit',
    taken: { startedAt: number; attributes: Record<string, string> },
  ): void;
  /**
   * Exports what is buffered and stops exporting, waiting at most a couple of seconds for the
   * collector; never rejects (spans it could not send are logged at warn).
   */
  shutdown(): Promise<void>;
}

/** The current time in epoch milliseconds, with sub-millisecond precision. */
export function preciseNow(): number {
  return performance.timeOrigin + performance.now();
}
