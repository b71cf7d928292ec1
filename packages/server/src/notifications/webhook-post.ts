import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';

/*
 * The webhook's HTTP POST, on node:http rather than fetch: a request here takes the
 * `lookup` its connection uses, so the addresses the kernel checked before the send are the
 * ones it connects to (fetch resolves the name again on its own, after the check).
 */

/** The most of a receiver's answer read, so that its connection can be reused. */
export const ANSWER_READ_LIMIT = 64 * 1024;

/** Connections kept between notices (an idle one does not hold the process open). */
const AGENTS = {
  'http:': new HttpAgent({ keepAlive: true }),
  'https:': new HttpsAgent({ keepAlive: true }),
};

/**
 * POSTs `body` to `url` and answers the receiver's status. The answer is read to its end when
 * it is short, so that the connection is kept for the next notice, and hung up on past
 * ANSWER_READ_LIMIT: nothing of it is kept, and an endless body cannot fill the kernel's
 * memory. Redirects are not followed. `lookup`, when given, is the only name lookup made.
 * @throws Error when the request fails or `signal` aborts before the status came.
 */
export function postForStatus(options: {
  url: string;
  headers: Record<string, string>;
  body: string;
  signal: AbortSignal;
  lookup?: LookupFunction | undefined;
}): Promise<number> {
  const url = new URL(options.url);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<number>((resolve, reject) => {
    const request = send(
      url,
      {
        method: 'POST',
        headers: { ...options.headers, 'content-length': Buffer.byteLength(options.body) },
        agent: url.protocol === 'https:' ? AGENTS['https:'] : AGENTS['http:'],
        signal: options.signal,
        ...(options.lookup ? { lookup: options.lookup } : {}),
      },
      (response) => readShortAnswer(response, ANSWER_READ_LIMIT).then(resolve),
    );
    request.on('error', reject);
    request.end(options.body);
  });
}

/**
 * Reads an answer's body up to `limit` and answers its status once the body ended, or was cut
 * off (past the limit, reset, the attempt's signal): the status already says what the
 * receiver answered.
 */
function readShortAnswer(response: IncomingMessage, limit: number): Promise<number> {
  const status = response.statusCode ?? 0;
  return new Promise<number>((resolve) => {
    let read = 0;
    const done = () => resolve(status);
    response.on('data', (chunk: Buffer) => {
      read += chunk.byteLength;
      if (read > limit) {
        response.destroy();
        done();
      }
    });
    response.on('end', done);
    response.on('error', done);
    response.on('close', done);
  });
}
