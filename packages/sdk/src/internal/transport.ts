import type {
  OperationContracts,
  OperationInput,
  OperationName,
  OperationOutput,
} from '@airlock/core';
import { traceparentOf } from '@airlock/core/tracing';
import { ConnectionError, errorFromBody } from '../errors.js';
import { defaultFetch } from './node-http.js';

/** How the SDK reaches a kernel: its base URL and a bearer token. */
export interface ConnectionOptions {
  /** The kernel's base URL, such as `http://127.0.0.1:4820`. */
  url: string;
  /** A bearer token: a member, agent or executor credential. */
  token: string;
  /**
   * A `fetch` to send requests with. By default the SDK uses Node's own
   * `http` in Node (a keep-alive agent; cheaper per request than Node's
   * `fetch`) and the global `fetch` elsewhere.
   */
  fetch?: typeof fetch | undefined;
  /**
   * The W3C `traceparent` each request carries, or a function giving it per
   * request. Absent: the application's active OpenTelemetry context is
   * propagated when it registered a propagator (nothing is sent otherwise).
   */
  traceparent?: string | (() => string | undefined) | undefined;
}

type OpenTelemetryApi = Pick<typeof import('@opentelemetry/api'), 'context' | 'propagation'>;

/** The application's OpenTelemetry API: undefined until looked for, null when it has none. */
let openTelemetry: OpenTelemetryApi | null | undefined;
let lookingForOpenTelemetry: Promise<OpenTelemetryApi | null> | undefined;

/**
 * Looks for `@opentelemetry/api` once. It is an optional peer dependency, as
 * OpenTelemetry asks of libraries: the application's own copy is the one whose
 * registered propagator and context manager count, and an application without
 * OpenTelemetry installs nothing for it.
 */
function lookForOpenTelemetry(): Promise<OpenTelemetryApi | null> {
  lookingForOpenTelemetry ??= import('@opentelemetry/api').then(
    (api) => (openTelemetry = api),
    () => (openTelemetry = null),
  );
  return lookingForOpenTelemetry;
}

/** Adds the trace context of a request: the one the application passed, else its active one. */
export async function addTraceContext(
  options: ConnectionOptions,
  headers: Record<string, string>,
): Promise<void> {
  const given =
    typeof options.traceparent === 'function' ? options.traceparent() : options.traceparent;
  if (given !== undefined) {
    const traceparent = traceparentOf(given);
    if (traceparent) headers.traceparent = traceparent;
    return;
  }
  // The active context survives the await: OpenTelemetry's Node context manager follows it.
  const api = openTelemetry !== undefined ? openTelemetry : await lookForOpenTelemetry();
  // A no-op unless the application registered a propagator (its OpenTelemetry SDK does).
  api?.propagation.inject(api.context.active(), headers);
}

/** The kernel's base URL without a trailing slash. */
export function baseUrl(url: string): string {
  return url.replace(/\/+$/, '');
}

/** One operation as the client calls it: `query` for a read, `mutate` for a write. */
type Procedure<C extends OperationContracts[OperationName]> = C['method'] extends 'GET'
  ? { query(input: OperationInput<C>): Promise<OperationOutput<C>> }
  : { mutate(input: OperationInput<C>): Promise<OperationOutput<C>> };

type Group<N extends string> = N extends `${infer G}.${string}` ? G : never;

/**
 * The typed client of every operation, nested by dotted name
 * (`operations.decisions.approve.mutate(...)`), typed from @airlock/core's contracts
 * (made by `createOperations`, internal/operations.ts).
 */
export type OperationsClient = {
  [G in Group<OperationName>]: {
    [N in OperationName as N extends `${G}.${infer P}` ? P : never]: Procedure<
      OperationContracts[N]
    >;
  };
};

/**
 * A fetch that sends a read (GET) once more when the first attempt never got
 * an answer: a pooled connection the kernel closed (a restart, an idle
 * timeout) fails before the request arrives. Writes are never resent.
 */
export function retryingReads(custom: typeof fetch | undefined): typeof fetch {
  return async (input, init) => {
    const send = custom ?? defaultFetch;
    try {
      return await send(input, init);
    } catch (error) {
      const method = (init?.method ?? 'GET').toUpperCase();
      if (method !== 'GET' || init?.signal?.aborted) throw error;
      return send(input, init);
    }
  };
}

interface TrpcAnswer {
  result?: { data?: unknown };
  error?: { message?: string; data?: { error?: unknown; httpStatus?: number } };
}

/**
 * Sends one read in tRPC's HTTP form (a GET, the input as JSON in `?input=`)
 * and reads the answer. Writes go over their REST routes (internal/operations.ts).
 * @throws AirlockError (a subclass per failure mode); ConnectionError when no answer arrived.
 */
export async function trpcQuery(
  options: ConnectionOptions,
  fetcher: typeof fetch,
  name: string,
  input: unknown,
): Promise<unknown> {
  const url = new URL(`${baseUrl(options.url)}/trpc/${name}`);
  const headers: Record<string, string> = { authorization: `Bearer ${options.token}` };
  await addTraceContext(options, headers);
  if (input !== undefined) url.searchParams.set('input', JSON.stringify(input));
  let response: Response;
  try {
    response = await fetcher(url, { method: 'GET', headers });
  } catch (error) {
    throw new ConnectionError(
      `the kernel at ${options.url} did not answer: ${(error as Error).message}`,
      error,
    );
  }
  let answer: TrpcAnswer | null = null;
  try {
    answer = (await response.json()) as TrpcAnswer;
  } catch (error) {
    throw errorFromBody(null, response.status, error);
  }
  if (response.ok && answer?.result && 'data' in answer.result) return answer.result.data;
  const data = answer?.error?.data;
  return Promise.reject(errorFromBody(data ?? null, data?.httpStatus ?? response.status));
}
