import { maxHeaderSize } from 'node:http';
import type { Duplex } from 'node:stream';
import { AirlockError, type ErrorCode } from './errors.js';

/** The status line of each answer the parser's refusals get. */
const STATUS_LINES: Record<number, string> = {
  400: '400 Bad Request',
  408: '408 Request Timeout',
  431: '431 Request Header Fields Too Large',
};

/** The server's deadlines for a request, in milliseconds (its `headersTimeout` and `requestTimeout`). */
export interface Deadlines {
  headersMs: number;
  requestMs: number;
}

/**
 * What a request the HTTP parser refused before any route saw it is answered:
 * one too slow to arrive (`request_timeout`), headers past Node's limit
 * (`headers_too_large`, which Node would answer with a bare 431 or not at
 * all), anything else that is not HTTP (`invalid_input`).
 */
export function clientErrorOf(error: NodeJS.ErrnoException, deadlines: Deadlines): AirlockError {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    // Node gives both deadlines this one code: the answer names both.
    return new AirlockError(
      'request_timeout',
      `the request did not arrive in time: its headers within ${deadlines.headersMs} ms, all of it within ${deadlines.requestMs} ms`,
    );
  }
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    return new AirlockError(
      'headers_too_large',
      `the request's headers are past the ${maxHeaderSize} bytes the kernel reads; send fewer or shorter headers`,
    );
  }
  return new AirlockError('invalid_input', 'the request is not valid HTTP');
}

/**
 * Answers a refusal of the HTTP parser (the server's `clientError`) in the
 * API's shape, `{error: {code, detail}}`, and closes the connection: no
 * response object exists yet, so the answer is written on the socket.
 * Returns the code answered, or null when the client is gone (nothing written).
 */
export function answerClientError(
  error: NodeJS.ErrnoException,
  socket: Duplex,
  deadlines: Deadlines,
): ErrorCode | null {
  if (!socket.writable) return null;
  const refusal = clientErrorOf(error, deadlines);
  const body = JSON.stringify(refusal.toBody());
  socket.end(
    `HTTP/1.1 ${STATUS_LINES[refusal.status] ?? '400 Bad Request'}\r\nconnection: close\r\n` +
      `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  return refusal.code;
}
