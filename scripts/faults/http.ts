import type { KernelProcess } from './kernel-process.js';

// biome-ignore lint/suspicious/noExplicitAny: the driver reads JSON answers loosely.
export type Loose = any;

/** An answer, or `unreachable` when the kernel died before answering. */
export type Outcome = { status: number; body: Loose } | { status: 'unreachable'; body: null };

/**
 * Calls one of the live kernels (at random) with a bearer token. A request
 * that loses its kernel mid-flight reports `unreachable`: whether it took
 * effect is unknown, which is exactly what the invariants must tolerate.
 */
export async function call(
  kernels: readonly KernelProcess[],
  token: string,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
): Promise<Outcome> {
  const live = kernels.filter((k) => k.alive());
  const kernel = live[Math.floor(Math.random() * live.length)];
  if (!kernel) return { status: 'unreachable', body: null };
  try {
    const response = await fetch(`${kernel.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null };
  } catch {
    return { status: 'unreachable', body: null };
  }
}

/** Calls until an answer comes (a kernel may be down for a moment); gives up after `ms`. */
export async function callUntilAnswered(
  kernels: readonly KernelProcess[],
  token: string,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
  ms = 30_000,
): Promise<{ status: number; body: Loose }> {
  const deadline = Date.now() + ms;
  for (;;) {
    const outcome = await call(kernels, token, method, path, body);
    if (outcome.status !== 'unreachable' && outcome.status < 500) return outcome;
    if (Date.now() > deadline) throw new Error(`${method} ${path}: no answer in ${ms} ms`);
    await sleep(100);
  }
}

/** Waits. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
