import { constants, isUtf8 } from 'node:buffer';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type CredentialKind, type OperationContract, pointerFrom } from '@airlock/core';
import { AirlockError } from '../errors.js';
import { LARGE_VALUE_CHARACTERS, nextTurn } from '../event-loop-turn.js';
import { checkJsonText } from './json-text.js';
import { declaresCode } from './operation.js';

/** Requests sent with `Expect: 100-continue` whose `100 Continue` has not gone out yet. */
const awaitingContinue = new WeakMap<IncomingMessage, ServerResponse>();

/**
 * Holds back the `100 Continue` of a request sent with `Expect:
 * 100-continue` until {@link readBody} starts reading its body. A request
 * answered before that (an unknown credential, the wrong plane, a body
 * announced past the limit) gets its answer instead, and the client never
 * sends the body.
 */
export function continueWhenRead(req: IncomingMessage, res: ServerResponse): void {
  awaitingContinue.set(req, res);
}

/**
 * The largest body the kernel can read, whatever its configured limit says:
 * a body is decoded into one string (for JSON.parse), and V8 makes none past
 * this many UTF-16 units, which a UTF-8 body of as many bytes never exceeds.
 * A larger body would fail while being decoded, after it was all read.
 */
export const MAX_READABLE_BODY = constants.MAX_STRING_LENGTH;

/** A configured body limit as the kernel applies it: at most {@link MAX_READABLE_BODY}. */
export function readableBodyLimit(limit: number): number {
  return Math.min(limit, MAX_READABLE_BODY);
}

/**
 * The refusal of a body whose client closed the connection before it was all
 * sent: the client's doing (400), never a fault of the kernel or its store,
 * and nothing was changed. REST and tRPC answer alike.
 */
export function bodyCutShort(): AirlockError {
  return new AirlockError(
    'invalid_json',
    'the body ended before it was all sent (the client closed the connection); nothing was changed',
  );
}

/**
 * Reads a request body up to a limit (at most {@link MAX_READABLE_BODY}).
 * @throws AirlockError payload_too_large past the limit; from {@link bodyCutShort}
 *   when the client closed the connection before the body's end.
 */
export async function readBody(req: IncomingMessage, configured: number): Promise<Buffer> {
  const limit = readableBodyLimit(configured);
  const chunks: Buffer[] = [];
  let size = 0;
  await readChunks(req, limit, (chunk) => {
    size += chunk.length;
    if (size > limit)
      throw new AirlockError('payload_too_large', `the body limit is ${limit} bytes`);
    chunks.push(chunk);
  });
  return Buffer.concat(chunks);
}

/**
 * Hands each chunk of a request's body to `take` (sending a held `100
 * Continue` first), for a body announced no longer than `announcedMax`.
 * When `take` throws (an AirlockError: the body is refused), the rest is
 * left unread and the promise rejects with it.
 * @throws AirlockError payload_too_large for a longer announced body; what
 *   `take` throws; from {@link bodyCutShort} when the client closed the
 *   connection before the body's end.
 */
export function readChunks(
  req: IncomingMessage,
  announcedMax: number,
  take: (chunk: Buffer) => void,
): Promise<void> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > announcedMax) {
    return Promise.reject(
      new AirlockError('payload_too_large', `the body limit is ${announcedMax} bytes`),
    );
  }
  const waiting = awaitingContinue.get(req);
  if (waiting) {
    awaitingContinue.delete(req);
    if (!waiting.headersSent) waiting.writeContinue();
  }
  return new Promise((resolve, reject) => {
    req.on('data', (chunk: Buffer) => {
      try {
        take(chunk);
      } catch (error) {
        req.removeAllListeners('data');
        req.resume();
        reject(error);
      }
    });
    req.on('end', () => resolve());
    // The connection's error (ECONNRESET, 'aborted') would read as the store's unavailability.
    req.on('error', () => reject(bodyCutShort()));
    req.on('close', () => {
      if (!req.complete) reject(bodyCutShort());
    });
    // Gone before the reading started: no event is left to come.
    if (req.destroyed && !req.complete) reject(bodyCutShort());
  });
}

const DETAIL =
  'the body is not UTF-8 text (it holds an invalid byte sequence); nothing was changed';

/**
 * The refusal of a body that is not UTF-8: decoded leniently, its bytes would
 * turn into U+FFFD and be stored as text nobody sent. `invalid_configuration`
 * (422, with a `not_unicode` problem) on an operation that declares policy,
 * `invalid_json` (400) on any other. REST and tRPC answer alike.
 */
export function notUtf8Error(operation: Pick<OperationContract, 'errors'>): AirlockError {
  if (declaresCode(operation, 'invalid_configuration')) {
    return new AirlockError('invalid_configuration', DETAIL, [
      { code: 'not_unicode', pointer: '', message: DETAIL },
    ]);
  }
  return new AirlockError('invalid_json', DETAIL);
}

/**
 * Decodes a body as UTF-8.
 * @throws AirlockError from {@link notUtf8Error} when it is not.
 */
export function decodeUtf8(body: Buffer, operation: Pick<OperationContract, 'errors'>): string {
  if (isUtf8(body)) return body.toString('utf8');
  throw notUtf8Error(operation);
}

/**
 * The body limit of a tRPC request to `procedures` (its path: one name, or a
 * batch's comma-separated names): the kernel's, or the largest floor among
 * the operations it calls, as REST reads each one (a hook event's 16 MiB).
 * Only the operations the caller's plane may call count; when it names none,
 * the limit is 0: its body is not read (nor a `100 Continue` sent), the call
 * is refused (403, or 404 for no such procedure), as REST refuses a plane
 * before reading a body.
 */
export function trpcBodyLimit(
  procedures: string,
  caller: { limit: number; plane: CredentialKind | null },
  operations: readonly Pick<OperationContract, 'name' | 'planes' | 'bodyLimitFloor'>[],
): number {
  let admitted = false;
  let largest = caller.limit;
  for (const name of procedures.split(',')) {
    const operation = operations.find((candidate) => candidate.name === name);
    if (caller.plane !== null && operation?.planes.includes(caller.plane)) {
      admitted = true;
      largest = Math.max(largest, operation.bodyLimitFloor ?? 0);
    }
  }
  return admitted ? largest : 0;
}

/** What reading a tRPC call's body found wrong; the procedure answers it in its operation's terms. */
export type BodyRefusal = 'not_utf8' | AirlockError;

/** A JSON media type as REST reads one: `application/json` or `application/…+json`. */
export const JSON_MEDIA_TYPE = /^application\/([a-z.+-]*\+)?json\b/i;

/** The refusal of a body sent as another type than JSON (REST's and tRPC's). */
export function unsupportedMediaType(): AirlockError {
  return new AirlockError('unsupported_media_type', 'send the body as application/json');
}

/** The codings of a header's list that are not in `understood`, as sent (empty: none). */
function otherCodings(header: string | undefined, understood: readonly string[]): string[] {
  if (header === undefined) return [];
  return header
    .split(',')
    .map((coding) => coding.trim())
    .filter((coding) => coding !== '' && !understood.includes(coding.toLowerCase()));
}

/**
 * The refusal of a body sent with a coding the kernel does not decode: a
 * content coding (`Content-Encoding: gzip`, `br`, ...) or a transfer coding
 * besides `chunked` (`Transfer-Encoding: gzip, chunked`, whose bytes Node
 * hands over still coded). Such a body would be read as bytes that are no
 * JSON text, or a mislabelled one taken as sent. Null when the request names
 * none (or only `identity`). Checked before the body is read.
 */
export function contentEncodingRefusal(req: IncomingMessage): AirlockError | null {
  const content = otherCodings(req.headers['content-encoding'], ['identity']);
  const transfer = otherCodings(req.headers['transfer-encoding'], ['chunked', 'identity']);
  const [header, codings] =
    content.length > 0 ? ['Content-Encoding', content] : ['Transfer-Encoding', transfer];
  if (codings.length === 0) return null;
  const named = codings.join(', ').slice(0, 40);
  return new AirlockError(
    'unsupported_media_type',
    `the body is sent with ${header} ${named}; send it uncompressed (application/json as is)`,
  );
}

/**
 * The refusal of a query parameter on a call that reads its input from the
 * JSON body (a POST or PUT): it would be dropped unread (a version that binds
 * an approve, a denial's reason), so it is refused, as a GET refuses an
 * unknown one. REST and tRPC answer alike.
 */
export function queryOnBodyRefusal(method: string, key: string): AirlockError {
  const message = `${method} reads its input from the JSON body; ${key} was sent in the query string`;
  return new AirlockError('invalid_input', `${pointerFrom([key])}: ${message}`, [
    { code: 'unrecognized_keys', pointer: pointerFrom([key]), message },
  ]);
}

/** True while a request still has body bytes the server has not read. */
export function hasUnreadBody(req: IncomingMessage): boolean {
  return (
    !req.complete &&
    (Number(req.headers['content-length'] ?? 0) > 0 || 'transfer-encoding' in req.headers)
  );
}

/**
 * Reads a tRPC call's body before tRPC does (tRPC would decode bytes that are
 * not UTF-8 leniently, into U+FFFD) and hands tRPC the decoded text as
 * `req.body`, once {@link checkJsonText} found nothing wrong with it (no key
 * named twice, no number read otherwise than written). tRPC reads it as JSON
 * whatever its type said: a body of a JSON type or none is JSON, as on REST,
 * and one of another type (form data, a byte stream, which tRPC would hand the
 * schema as an object of unknown keys) is refused `unsupported_media_type`.
 * A query parameter besides tRPC's `batch` is refused as REST refuses one on
 * a POST. On a refusal tRPC sees an empty body, and the refusal is returned
 * for the procedure to answer. A request without a body is left unread.
 */
export async function readTrpcBody(
  req: IncomingMessage,
  options: { limit: number; query: URLSearchParams },
): Promise<BodyRefusal | null> {
  const type = req.headers['content-type'];
  req.headers['content-type'] = 'application/json';
  const holder = req as IncomingMessage & { body?: string };
  // `batch` is tRPC's own; anything else (an `input`) tRPC would drop unread.
  const queried = [...options.query.keys()].find((key) => key !== 'batch');
  if (queried !== undefined) {
    holder.body = '';
    return queryOnBodyRefusal(req.method ?? 'POST', queried);
  }
  if (!hasUnreadBody(req)) return null;
  const encoded = contentEncodingRefusal(req);
  if (encoded) {
    holder.body = '';
    return encoded;
  }
  let body: Buffer;
  try {
    body = await readBody(req, options.limit);
  } catch (error) {
    holder.body = '';
    return error instanceof AirlockError ? error : bodyCutShort();
  }
  if (body.length > 0 && type !== undefined && !JSON_MEDIA_TYPE.test(type)) {
    holder.body = '';
    return unsupportedMediaType();
  }
  if (!isUtf8(body)) {
    holder.body = '';
    return 'not_utf8';
  }
  const text = body.toString('utf8');
  try {
    checkJsonText(text);
  } catch (error) {
    holder.body = '';
    if (error instanceof AirlockError) return error;
    throw error;
  }
  holder.body = text;
  // tRPC parses a large body a turn after it was read and decoded.
  if (holder.body.length > LARGE_VALUE_CHARACTERS) await nextTurn(null);
  return null;
}

/**
 * Checks the JSON text of a tRPC query's `input` parameter (a query or a
 * subscription carries its input in the URL) as {@link readTrpcBody} checks
 * a body, and refuses a parameter given more than once as REST does (tRPC
 * reads the first `input`, where a proxy may read the last): the refusal, or null.
 */
export function trpcQueryRefusal(url: URL): AirlockError | null {
  const seen = new Set<string>();
  for (const key of url.searchParams.keys()) {
    if (seen.has(key)) return new AirlockError('invalid_input', `${key}: given more than once`);
    seen.add(key);
  }
  const input = url.searchParams.get('input');
  if (input === null) return null;
  try {
    checkJsonText(input);
    return null;
  } catch (error) {
    if (error instanceof AirlockError) return error;
    throw error;
  }
}

/** Whether a tRPC call's body, as {@link readTrpcBody} left it, is past the large-value threshold. */
export function hasLargeTrpcBody(req: IncomingMessage): boolean {
  const { body } = req as IncomingMessage & { body?: unknown };
  return typeof body === 'string' && body.length > LARGE_VALUE_CHARACTERS;
}
