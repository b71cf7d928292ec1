import type { KernelContext } from '../context.js';

/** Per kernel, what aborts the model requests it has in flight when it stops. */
const stops = new WeakMap<KernelContext, AbortController>();

/**
 * The signal that aborts this kernel's model requests when it stops. A step
 * reads it once, when it starts, so that a stop while it leases the model
 * turn still aborts the request it then sends.
 */
export function modelStopOf(ctx: KernelContext): AbortSignal {
  let stop = stops.get(ctx);
  if (!stop) {
    stop = new AbortController();
    stops.set(ctx, stop);
  }
  return stop.signal;
}

/**
 * Aborts every model request (a round or a summary) a stopping kernel has in
 * flight, rather than keep its shutdown waiting for the slowest model (up to
 * `--model-timeout`). Each aborted round is recorded as nothing: its run's
 * model turn is handed back, so the next kernel asks again at once instead of
 * waiting out the lease. Steps started after this get a fresh signal.
 */
export function abortModelRequests(ctx: KernelContext): void {
  stops.get(ctx)?.abort(new Error('the kernel is stopping'));
  stops.delete(ctx);
}

/** Per kernel, the model request it has in flight for each run. */
const inFlight = new WeakMap<KernelContext, Map<string, AbortController>>();

/** The signal of one model request, and what to call once it is answered. */
export interface ModelRequestSignal {
  signal: AbortSignal;
  /** Disarms the time limit and stops listening to the kernel's stop. */
  done(): void;
}

/** One model request of a run: what aborts it besides its run ending. */
export interface ModelRequest {
  runId: string;
  /** The kernel's stop ({@link modelStopOf}). */
  stop: AbortSignal;
  timeoutMs: number;
  /**
   * Where to hear the run's end committed by another kernel sharing the
   * store ({@link hearRunEndsThrough}); absent: only this kernel's ends abort it.
   */
  heard?: RunEndsAfter | undefined;
}

/** A run whose end is listened for, from a point of its workspace's event log on. */
export interface RunEndsAfter {
  workspaceId: string;
  /**
   * A sequence number of the workspace's log read before the run's model turn
   * was leased: every end committed after the lease comes after it.
   */
  after: number;
}

/** Listens for the end of one run (calls `onEnd` once heard); returns what stops listening. */
export type HearRunEnd = (run: RunEndsAfter & { runId: string }, onEnd: () => void) => () => void;

/** Per kernel, how it hears of runs other kernels sharing its store end. */
const hearings = new WeakMap<KernelContext, HearRunEnd>();

/**
 * Lets a kernel sharing its store with others hear their run endings (a
 * member's stop, an application's removal, a revocation, committed by
 * another kernel) while it asks a model for the run, and abort that request
 * at once. Wired at start on a database server (PostgreSQL) only: on SQLite
 * one kernel serves the store and aborts its own requests as it ends their runs.
 */
export function hearRunEndsThrough(ctx: KernelContext, hear: HearRunEnd): void {
  hearings.set(ctx, hear);
}

/** True when this kernel listens for other kernels' run endings ({@link hearRunEndsThrough}). */
export function hearsRunEnds(ctx: KernelContext): boolean {
  return hearings.has(ctx);
}

/**
 * A signal for one model request of a run: aborted at its time limit (a
 * `TimeoutError`, as `AbortSignal.timeout` gives), when the kernel stops, or
 * when the run ends meanwhile ({@link abortRunModelRequest}). Not
 * `AbortSignal.any`: on Node 20 each signal it makes stays listed on the
 * long-lived stop signal, one more for every round the kernel ever asked.
 */
export function modelRequestSignal(ctx: KernelContext, request: ModelRequest): ModelRequestSignal {
  const { stop } = request;
  const controller = new AbortController();
  const timer = setTimeout(() => {
    controller.abort(new DOMException('the model request timed out', 'TimeoutError'));
  }, request.timeoutMs);
  // As AbortSignal.timeout's: a pending limit alone does not keep the process alive.
  timer.unref();
  const onStop = () => controller.abort(stop.reason);
  if (stop.aborted) onStop();
  else stop.addEventListener('abort', onStop, { once: true });
  let runs = inFlight.get(ctx);
  if (!runs) {
    runs = new Map();
    inFlight.set(ctx, runs);
  }
  runs.set(request.runId, controller);
  const hear = request.heard && hearings.get(ctx);
  const unhear =
    request.heard && hear
      ? hear({ ...request.heard, runId: request.runId }, () =>
          controller.abort(new Error('the run ended')),
        )
      : () => {};
  return {
    signal: controller.signal,
    done() {
      clearTimeout(timer);
      unhear();
      stop.removeEventListener('abort', onStop);
      if (runs.get(request.runId) === controller) runs.delete(request.runId);
    },
  };
}

/**
 * Aborts the model request this kernel has in flight for a run that just
 * ended (a stop, an abandon): its answer would only be dropped, and the
 * endpoint goes on generating (and billing) it until the round's time limit.
 * Another kernel sharing the database hears of the end through its feed and
 * aborts its own request ({@link hearRunEndsThrough}).
 */
export function abortRunModelRequest(ctx: KernelContext, runId: string): void {
  inFlight.get(ctx)?.get(runId)?.abort(new Error('the run ended'));
}
