import { createTRPCClient, httpLink, TRPCClientError } from '@trpc/client';
import { ConnectionError, errorFromBody } from '../errors.js';
import type { AppRouter } from './router.js';

/** The typed tRPC client over the kernel's `/trpc` endpoint. */
export type Trpc = ReturnType<typeof createTRPCClient<AppRouter>>;

/** How the SDK reaches a kernel: its base URL and a bearer token. */
export interface ConnectionOptions {
  /** The kernel's base URL, such as `http://127.0.0.1:4820`. */
  url: string;
  /** A bearer token: a member, agent or executor credential. */
  token: string;
  /** A `fetch` to use instead of the global one. */
  fetch?: typeof fetch | undefined;
}

/** The kernel's base URL without a trailing slash. */
export function baseUrl(url: string): string {
  return url.replace(/\/+$/, '');
}

/**
 * A fetch that sends a read (GET) once more when the first attempt never got
 * an answer: a pooled connection the kernel closed (a restart, an idle
 * timeout) fails before the request arrives. Writes are never resent.
 */
function retryingReads(custom: typeof fetch | undefined): typeof fetch {
  return async (input, init) => {
    const send = custom ?? globalThis.fetch;
    try {
      return await send(input, init);
    } catch (error) {
      const method = (init?.method ?? 'GET').toUpperCase();
      if (method !== 'GET' || init?.signal?.aborted) throw error;
      return send(input, init);
    }
  };
}

/** Makes the typed tRPC client for a kernel. */
export function createTrpc(options: ConnectionOptions): Trpc {
  return createTRPCClient<AppRouter>({
    links: [
      httpLink({
        url: `${baseUrl(options.url)}/trpc`,
        headers: { authorization: `Bearer ${options.token}` },
        fetch: retryingReads(options.fetch),
      }),
    ],
  });
}

/** Turns whatever a tRPC call threw into the SDK's typed error. */
export function toAirlockError(error: unknown): Error {
  if (!(error instanceof TRPCClientError)) return error as Error;
  const data = error.data as { error?: unknown; httpStatus?: number } | null | undefined;
  const status =
    typeof data?.httpStatus === 'number'
      ? data.httpStatus
      : ((error.meta?.response as { status?: number } | undefined)?.status ?? null);
  if (!data && status === null) {
    return new ConnectionError(error.message || 'the kernel did not answer', error);
  }
  return errorFromBody(data ?? null, status, error);
}

/**
 * Runs one tRPC call, rethrowing a failure as the SDK's typed error.
 * @throws AirlockError (a subclass per failure mode).
 */
export async function call<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw toAirlockError(error);
  }
}
