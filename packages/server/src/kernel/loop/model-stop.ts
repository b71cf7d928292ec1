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
  return {
    signal: controller.signal,
    done() {
      clearTimeout(timer);
      stop.removeEventListener('abort', onStop);
      if (runs.get(request.runId) === controller) runs.delete(request.runId);
    },
  };
}

/**
 * Aborts the model request this kernel has in flight for a run that just
 * ended (a stop, an abandon): its answer would only be dropped, and the
 * endpoint goes on generating (and billing) it until the round's time limit.
 * Another kernel sharing the database finishes its own request.
 */
export function abortRunModelRequest(ctx: KernelContext, runId: string): void {
  inFlight.get(ctx)?.get(runId)?.abort(new Error('the run ended'));
}
