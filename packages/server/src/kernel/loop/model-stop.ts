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

/** The signal of one model request, and what to call once it is answered. */
export interface ModelRequestSignal {
  signal: AbortSignal;
  /** Disarms the time limit and stops listening to the kernel's stop. */
  done(): void;
}

/**
 * A signal for one model request: aborted at its time limit (a `TimeoutError`,
 * as `AbortSignal.timeout` gives) or when the kernel stops. Not
 * `AbortSignal.any`: on Node 20 each signal it makes stays listed on the
 * long-lived stop signal, one more for every round the kernel ever asked.
 */
export function modelRequestSignal(stop: AbortSignal, timeoutMs: number): ModelRequestSignal {
  const request = new AbortController();
  const timer = setTimeout(() => {
    request.abort(new DOMException('the model request timed out', 'TimeoutError'));
  }, timeoutMs);
  // As AbortSignal.timeout's: a pending limit alone does not keep the process alive.
  timer.unref();
  const onStop = () => request.abort(stop.reason);
  if (stop.aborted) onStop();
  else stop.addEventListener('abort', onStop, { once: true });
  return {
    signal: request.signal,
    done() {
      clearTimeout(timer);
      stop.removeEventListener('abort', onStop);
    },
  };
}
