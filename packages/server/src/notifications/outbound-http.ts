import {
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { FetchFunction } from '@slack/web-api';
import { checkResolvedTarget, pinnedLookup, type Resolve } from './target-address.js';

/*
 * The requests the kernel makes to notify (a webhook's POST, Slack's Web API), on node:http
 * rather than fetch: a request here takes the `lookup` its connection uses, so the addresses
 * the kernel checked before the send are the ones it connects to (fetch resolves the name
 * again on its own, after the check). Redirects are never followed.
 */

/** The most of a webhook receiver's answer read, so that its connection can be reused. */
export const ANSWER_READ_LIMIT = 64 * 1024;

/** The most of a Slack Web API answer kept (a message with its 50 blocks is far below it). */
const SLACK_ANSWER_LIMIT = 4 * 1024 * 1024;

/** Connections kept between notices (an idle one does not hold the process open). */
const AGENTS = {
  'http:': new HttpAgent({ keepAlive: true }),
  'https:': new HttpsAgent({ keepAlive: true }),
};

/** One request: `lookup`, when given, is the only name lookup made. */
interface OutboundRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string;
  signal?: AbortSignal | undefined;
  lookup?: LookupFunction | undefined;
}

/** Sends a request and hands its answer's head to `read`, which settles the result. */
function send<T>(
  options: OutboundRequest,
  read: (
    response: IncomingMessage,
    resolve: (value: T) => void,
    reject: (error: Error) => void,
  ) => void,
): Promise<T> {
  const url = new URL(options.url);
  const requestOf = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<T>((resolve, reject) => {
    let answer: IncomingMessage | undefined;
    const request = requestOf(
      url,
      {
        method: options.method,
        headers: { ...options.headers, 'content-length': Buffer.byteLength(options.body) },
        agent: url.protocol === 'https:' ? AGENTS['https:'] : AGENTS['http:'],
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.lookup ? { lookup: options.lookup } : {}),
      },
      (response) => {
        answer = response;
        read(response, resolve, reject);
      },
    );
    // Once the answer's head came, a failure (the signal, a reset) ends its body, and `read`
    // settles: rejected here first, a 200 whose body was cut off counted as failed and was sent again.
    request.on('error', (error) => (answer ? answer.destroy(error) : reject(error)));
    // A 101 goes to 'upgrade' listeners, never to the callback: with none, the request never
    // settled, deaf to its signal, and held its send in flight for good. An answer without a body.
    request.on('upgrade', (response: IncomingMessage, socket: { destroy(): void }) => {
      socket.destroy();
      answer = response;
      read(response, resolve, reject);
      response.push(null);
    });
    request.end(options.body);
  });
}

/**
 * POSTs `body` to `url` and answers the receiver's status. The answer is read to its end when
 * it is short, so that the connection is kept for the next notice, and hung up on past
 * ANSWER_READ_LIMIT: nothing of it is kept, and an endless body cannot fill the kernel's
 * memory. Once the status came, a body cut off (reset, the signal) leaves it standing.
 * @throws Error when the request fails or `signal` aborts before the status came.
 */
export function postForStatus(options: Omit<OutboundRequest, 'method'>): Promise<number> {
  return send<number>({ ...options, method: 'POST' }, (response, resolve) => {
    const status = response.statusCode ?? 0;
    const done = () => resolve(status);
    let read = 0;
    response.on('data', (chunk: Buffer) => {
      read += chunk.byteLength;
      if (read > ANSWER_READ_LIMIT) {
        response.destroy();
        done();
      }
    });
    response.on('end', done);
    response.on('error', done);
    response.on('close', done);
  });
}

/** An answer's headers as a fetch Headers. */
function headersOf(incoming: IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming)) {
    for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) {
      headers.append(name, one);
    }
  }
  return headers;
}

/**
 * The `fetch` Slack's Web API client is given: the API host's name is checked before each
 * request like a webhook's (never a link-local address) and the connection pinned to the
 * addresses checked; an answer longer than SLACK_ANSWER_LIMIT fails the request unread.
 * `resolve` is the host name lookup (for tests).
 */
export function pinnedFetch(resolve?: Resolve | undefined): FetchFunction {
  return async (url, init) => {
    if (init?.body !== undefined && typeof init.body !== 'string') {
      throw new Error('only a url-encoded body is sent to Slack here');
    }
    const target = String(url);
    const pinned = await checkResolvedTarget(target, resolve, init?.signal);
    const answer = await send<{
      status: number;
      statusText: string;
      headers: Headers;
      body: Buffer;
    }>(
      {
        url: target,
        method: init?.method ?? 'GET',
        headers: init?.headers ?? {},
        body: init?.body ?? '',
        signal: init?.signal,
        lookup: pinned ? pinnedLookup(pinned) : undefined,
      },
      (response, resolveAnswer, reject) => {
        const chunks: Buffer[] = [];
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.byteLength;
          if (read > SLACK_ANSWER_LIMIT) {
            response.destroy();
            reject(new Error(`the answer is longer than ${SLACK_ANSWER_LIMIT} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        response.on('error', reject);
        // After an end this is too late to change anything; before one, the answer was cut off.
        response.on('close', () => reject(new Error('the answer was cut off')));
        response.on('end', () =>
          resolveAnswer({
            status: response.statusCode ?? 0,
            statusText: response.statusMessage ?? '',
            headers: headersOf(response.headers),
            body: Buffer.concat(chunks),
          }),
        );
      },
    );
    // A Response cannot carry a 1xx status (a 101 upgrade): no answer of Slack's.
    if (answer.status < 200) throw new Error(`the answer's status was ${answer.status}`);
    // A status that carries no body (204, 304) may not be given one.
    const body = [204, 205, 304].includes(answer.status) ? null : new Uint8Array(answer.body);
    return new Response(body, {
      status: answer.status,
      statusText: answer.statusText,
      headers: answer.headers,
    }) as unknown as Awaited<ReturnType<FetchFunction>>;
  };
}
