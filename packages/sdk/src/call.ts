import type {
  OperationContracts,
  OperationInput,
  OperationName,
  OperationOutput,
} from '@airlock/core';
import { traceparentOf } from '@airlock/core/tracing';
import { OPERATION_ROUTES, type OperationRoute, pathParams } from '@airlock/core/wire';
import { ConnectionError, errorFromBody, type ValidationError } from './errors.js';
import { invalidInput, jsonOf, type RequestOptions, underDeadline } from './internal/deadline.js';
import {
  addTraceContext,
  baseUrl,
  type ConnectionOptions,
  checkConnectionOptions,
  deadlineExceeded,
  notTheKernelsAnswer,
  retryingReads,
  timeoutOf,
} from './internal/transport.js';

/** What an operation takes: its path parameters and its query or body fields, in one object. */
export type CallInput<N extends OperationName> = OperationInput<OperationContracts[N]>;

/** What an operation answers (a JSON-lines answer is gathered back into its object). */
export type CallOutput<N extends OperationName> = OperationOutput<OperationContracts[N]>;

/** Per-call options of {@link Call}: a signal, a timeout, a trace context. */
export interface CallOptions extends RequestOptions {
  /** The W3C `traceparent` of this call; an invalid or absent one falls back on the client's. */
  traceparent?: string | null | undefined;
}

/**
 * Calls one operation of the kernel by its dotted name, over the REST route
 * its contract in @airlock/core declares: the name fixes the method, the
 * path and its parameters, what goes in the query or the body, and the
 * answer's type, so a renamed route or field is a compile error here.
 *
 * ```ts
 * const run = await client.call('runs.get', { workspace_id, run_id });
 * ```
 * @throws AirlockError (a subclass per failure mode) carrying the server's
 *   stable code; ConnectionError when no answer arrived, DeadlineExceededError
 *   when none arrived within the timeout; the signal's reason when it aborts;
 *   ValidationError `invalid_input` before sending when a path parameter is
 *   missing, a query field is not a scalar, or the input cannot be sent as
 *   JSON (a BigInt, a cycle).
 */
export type Call = <N extends OperationName>(
  operation: N,
  input: CallInput<N>,
  options?: CallOptions,
) => Promise<CallOutput<N>>;

type Fields = Record<string, unknown>;

function refuse(detail: string, pointer: string): ValidationError {
  return invalidInput([{ code: 'invalid_input', pointer, message: detail }]);
}

/** An operation's name and route. */
type NamedRoute = OperationRoute & { readonly name: string };

/** The route's URL with its parameters filled in, and the fields left for the query or body. */
function routeOf(base: string, route: NamedRoute, input: Fields): { url: URL; rest: Fields } {
  const rest: Fields = { ...input };
  let path = route.path;
  for (const name of pathParams(route.path)) {
    const value = rest[name];
    if ((typeof value !== 'string' && typeof value !== 'number') || value === '') {
      throw refuse(`${route.name} needs ${name} (a path parameter)`, `/${name}`);
    }
    path = path.replace(`{${name}}`, encodeURIComponent(String(value)));
    delete rest[name];
  }
  return { url: new URL(`${base}${path}`), rest };
}

/** Puts a read's fields in the query string: text, numbers and booleans, as REST reads them. */
function setQuery(url: URL, route: NamedRoute, fields: Fields): void {
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      throw refuse(
        `${route.name} reads ${key} from the query string: give text, a number or a boolean`,
        `/${key}`,
      );
    }
    url.searchParams.set(key, String(value));
  }
}

/** Reads a successful answer; a JSON-lines one becomes the object its contract declares. */
function readAnswer(route: NamedRoute, text: string, status: number, url: string): unknown {
  try {
    if (route.jsonLines) {
      const items = text.split('\n').filter((line) => line !== '');
      return { [route.jsonLines]: items.map((line) => JSON.parse(line) as unknown) };
    }
    return text === '' ? null : (JSON.parse(text) as unknown);
  } catch (error) {
    throw notTheKernelsAnswer(url, status, error);
  }
}

/** What answered: the response and its text. */
interface Answer {
  response: Response;
  text: string;
}

/** Sends one request and reads its text; no answer at all is a ConnectionError. */
async function send(
  options: ConnectionOptions,
  fetcher: typeof fetch,
  url: URL,
  init: RequestInit,
): Promise<Answer> {
  try {
    const response = await fetcher(url, init);
    return { response, text: await response.text() };
  } catch (error) {
    // Node's fetch says only "fetch failed"; the socket's code (ECONNREFUSED) says why.
    const reason = (error as { cause?: { code?: unknown } }).cause?.code;
    const message = (error as Error).message;
    const why = typeof reason === 'string' && !message.includes(reason) ? ` (${reason})` : '';
    throw new ConnectionError(
      `the kernel at ${options.url} did not answer: ${message}${why}`,
      error,
    );
  }
}

/**
 * Makes the {@link Call} of a kernel.
 * @throws ValidationError `invalid_input` for options it cannot send with (see checkConnectionOptions).
 */
export function createCall(options: ConnectionOptions): Call {
  checkConnectionOptions(options);
  const fetcher = retryingReads(options.fetch);
  const base = baseUrl(options.url);
  const routes: Readonly<Record<string, OperationRoute>> = OPERATION_ROUTES;
  return async function call<N extends OperationName>(
    operation: N,
    input: CallInput<N>,
    callOptions: CallOptions = {},
  ): Promise<CallOutput<N>> {
    const route = Object.hasOwn(routes, operation)
      ? { name: operation, ...routes[operation]! }
      : undefined;
    if (!route) throw refuse(`there is no operation named ${String(operation)}`, '');
    const { url, rest } = routeOf(base, route, { ...(input as Fields) });
    const timeoutMs = timeoutOf(options, callOptions);
    const headers: Record<string, string> = { authorization: `Bearer ${options.token}` };
    let body: string | undefined;
    if (route.method === 'GET') {
      setQuery(url, route, rest);
    } else {
      headers['content-type'] = 'application/json';
      body = jsonOf(rest, `the input of ${route.name}`);
    }
    const traceparent = traceparentOf(callOptions.traceparent);
    if (traceparent) headers.traceparent = traceparent;
    else await addTraceContext(options, headers);
    const { response, text } = await underDeadline(
      timeoutMs,
      callOptions.signal,
      () => deadlineExceeded(options, timeoutMs ?? 0, route.method !== 'GET'),
      (signal) =>
        send(options, fetcher, url, {
          method: route.method,
          headers,
          ...(body === undefined ? {} : { body }),
          ...(signal ? { signal } : {}),
        }),
    );
    if (response.ok) return readAnswer(route, text, response.status, options.url) as CallOutput<N>;
    let parsed: unknown = null;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw errorFromBody(null, response.status, error);
    }
    throw errorFromBody(parsed, response.status);
  };
}
