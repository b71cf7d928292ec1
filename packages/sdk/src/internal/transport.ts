import type {
  OperationContracts,
  OperationInput,
  OperationName,
  OperationOutput,
} from '@airlock/core';
import { traceparentOf } from '@airlock/core/tracing';
import {
  ConnectionError,
  DeadlineExceededError,
  errorFromBody,
  type Problem,
  type ServerError,
  unreadableAnswer,
} from '../errors.js';
import {
  DEFAULT_TIMEOUT_MS,
  invalidInput,
  jsonOf,
  type RequestOptions,
  timeoutProblem,
  underDeadline,
} from './deadline.js';
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
  /**
   * How long each request waits for the kernel's answer, in milliseconds
   * (default 30 000), and a feed's socket or an executor's cable for its
   * handshake (then it is dropped and tried again); then a request fails
   * with a DeadlineExceededError (`deadline_exceeded`). null waits as long
   * as it takes. A request's own `timeoutMs` overrides it.
   */
  timeoutMs?: number | null | undefined;
}

/** Characters a bearer token may hold: visible ASCII, what an HTTP header carries as is. */
const TOKEN = /^[\x21-\x7e]*$/;

/**
 * Checks what a client is made with, reporting every problem at once.
 * @throws ValidationError `invalid_input` for a URL that is not http(s) or
 *   has a query, a fragment, a user or a password, a token a header cannot carry, or a timeout that is not a positive number.
 */
export function checkConnectionOptions(options: ConnectionOptions): void {
  const problems: Problem[] = [];
  const refuse = (pointer: string, message: string) =>
    problems.push({ code: 'invalid_input', pointer, message });
  let url: URL | null = null;
  try {
    url = new URL(options.url);
  } catch {
    // reported below
  }
  if (url?.protocol !== 'http:' && url?.protocol !== 'https:') {
    refuse('/url', `url must be the kernel's http(s) base URL, such as http://127.0.0.1:4820`);
  } else if (/[?#]/.test(options.url)) {
    // The operations' paths are appended to the base: after a query or a fragment they reach no route.
    refuse(
      '/url',
      `url must be the kernel's base URL with no query or fragment, such as http://127.0.0.1:4820`,
    );
  } else if (url.username !== '' || url.password !== '') {
    // A socket would send them as its authorization header, which the kernel reads before the token.
    refuse('/url', 'url must carry no user or password: the credential goes in `token`');
  }
  if (options.token === undefined || options.token === null || options.token === '') {
    // Most often `process.env.X!` of a variable that is not set.
    refuse('/token', 'no token was given: pass the credential (is its environment variable set?)');
  } else if (typeof options.token !== 'string' || !TOKEN.test(options.token)) {
    refuse(
      '/token',
      'token must be the credential as issued: visible ASCII, no spaces or line breaks',
    );
  }
  const timeout = timeoutProblem(options.timeoutMs, '/timeoutMs');
  if (timeout) problems.push(timeout);
  if (problems.length > 0) throw invalidInput(problems);
}

/** The timeout of one request: its own, else the client's, else the default. */
export function timeoutOf(options: ConnectionOptions, request: RequestOptions): number | null {
  const own = request.timeoutMs !== undefined ? request.timeoutMs : options.timeoutMs;
  const problem = timeoutProblem(own, '/timeoutMs');
  if (problem) throw invalidInput([problem]);
  return own === undefined ? DEFAULT_TIMEOUT_MS : own;
}

/** The error of a request the kernel did not answer in time. */
export function deadlineExceeded(
  options: ConnectionOptions,
  timeoutMs: number,
  write: boolean,
): DeadlineExceededError {
  const applied = write ? '; the write may have been applied: read before sending it again' : '';
  return new DeadlineExceededError(
    `the kernel at ${options.url} did not answer within ${timeoutMs} ms${applied}`,
    timeoutMs,
  );
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

/**
 * The error for a success the SDK cannot read (a body that is not JSON, or not the kernel's
 * form): most often a url that reaches another web server, which answers every path.
 */
export function notTheKernelsAnswer(url: string, status: number, cause?: unknown): ServerError {
  return unreadableAnswer(
    `the server at ${url} answered ${status} with a body that is not the kernel's answer: is url the kernel's base URL?`,
    status,
    cause,
  );
}

/** The kernel's base URL without a trailing slash. */
export function baseUrl(url: string): string {
  return url.replace(/\/+$/, '');
}

/** One operation as the client calls it: `query` for a read, `mutate` for a write. */
type Procedure<C extends OperationContracts[OperationName]> = C['method'] extends 'GET'
  ? { query(input: OperationInput<C>, options?: RequestOptions): Promise<OperationOutput<C>> }
  : { mutate(input: OperationInput<C>, options?: RequestOptions): Promise<OperationOutput<C>> };

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
 * @throws AirlockError (a subclass per failure mode); ConnectionError when no
 *   answer arrived, DeadlineExceededError when none arrived in time; the
 *   signal's reason when it aborts; ValidationError for an input JSON cannot carry.
 */
export async function trpcQuery(
  options: ConnectionOptions,
  fetcher: typeof fetch,
  name: string,
  input: unknown,
  request: RequestOptions = {},
): Promise<unknown> {
  const url = new URL(`${baseUrl(options.url)}/trpc/${name}`);
  if (input !== undefined) url.searchParams.set('input', jsonOf(input, `the input of ${name}`));
  const timeoutMs = timeoutOf(options, request);
  const headers: Record<string, string> = { authorization: `Bearer ${options.token}` };
  await addTraceContext(options, headers);
  const { response, answer } = await underDeadline(
    timeoutMs,
    request.signal,
    () => deadlineExceeded(options, timeoutMs ?? 0, false),
    async (signal) => {
      let response: Response;
      try {
        response = await fetcher(url, { method: 'GET', headers, ...(signal ? { signal } : {}) });
      } catch (error) {
        throw new ConnectionError(
          `the kernel at ${options.url} did not answer: ${(error as Error).message}`,
          error,
        );
      }
      try {
        return { response, answer: (await response.json()) as TrpcAnswer | null };
      } catch (error) {
        if (signal?.aborted) throw error;
        if (response.ok) throw notTheKernelsAnswer(options.url, response.status, error);
        throw errorFromBody(null, response.status, error);
      }
    },
  );
  if (response.ok && answer?.result && 'data' in answer.result) return answer.result.data;
  if (response.ok && !answer?.error) throw notTheKernelsAnswer(options.url, response.status);
  const data = answer?.error?.data;
  return Promise.reject(errorFromBody(data ?? null, data?.httpStatus ?? response.status));
}
