import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { AirlockError } from '../errors.js';
import { LARGE_VALUE_CHARACTERS, nextTurn } from '../event-loop-turn.js';
import { clientGoneSignal } from '../http-connections.js';
import type { Kernel } from '../kernel/kernel.js';
import { redactUrl } from '../logging/redact.js';
import { asStoreError } from '../store/store-errors.js';
import {
  authenticateToken,
  bearerToken,
  checkAccess,
  checkRunFence,
  checkStillActive,
} from './access.js';
import { type AuthFailureThrottle, peerOf } from './auth-throttle.js';
import { closeAfterAnswer } from './close-after-answer.js';
import { CUT_READ_OPERATIONS, readHookBody } from './hook-body.js';
import { checkParsedInput } from './input-guard.js';
import { invalidInput } from './input-problems.js';
import { checkJsonText } from './json-text.js';
import { declaresCode, type Operation, pathParams } from './operation.js';
import { decimalQueryNumber, numberFields } from './query-values.js';
import type { RateLimiter } from './rate-limit.js';
import {
  contentEncodingRefusal,
  decodeUtf8,
  hasUnreadBody,
  JSON_MEDIA_TYPE,
  queryOnBodyRefusal,
  readBody,
  unsupportedMediaType,
} from './request-body.js';
import { noteErrorCode, noteOperation } from './request-notes.js';

interface Route {
  operation: Operation;
  /** The path's segments: a literal, or null where a parameter stands. */
  segments: (string | null)[];
  params: string[];
  /** The query parameters a GET reads as numbers (plain decimal digits). */
  numbers: ReadonlySet<string>;
}

/** Options of the REST surface. */
export interface RestOptions {
  kernel: Kernel;
  logger: Logger;
  /** Largest request body in bytes; default 1 MiB. */
  bodyLimit: number;
  /** Checks every answer against its output schema (tests turn this on). */
  validateOutputs: boolean;
  /** Per-credential request limit; none when absent. */
  rateLimiter?: RateLimiter | null | undefined;
  /** Per-peer limit on failed authentications; none when absent. */
  authThrottle?: AuthFailureThrottle | null | undefined;
}

/**
 * Splits an operation's path into segments.
 * @throws Error when a parameter is not a whole segment (a contract bug, found at startup).
 */
function compile(operation: Operation): Route {
  const params = pathParams(operation.path);
  const segments = operation.path.split('/').map((segment) => {
    if (/^\{[a-z_]+\}$/.test(segment)) return null;
    if (segment.includes('{')) throw new Error(`${operation.path}: a parameter is not a segment`);
    return segment;
  });
  const numbers =
    operation.method === 'GET' ? numberFields(operation.input.shape) : new Set<string>();
  return { operation, segments, params, numbers };
}

/** The routes whose path matches, with the parameters' raw (still percent-encoded) values. */
function matchRoutes(
  bySegmentCount: ReadonlyMap<number, Route[]>,
  pathname: string,
): { route: Route; values: string[] }[] {
  const parts = pathname.split('/');
  const found: { route: Route; values: string[] }[] = [];
  for (const route of bySegmentCount.get(parts.length) ?? []) {
    const values: string[] = [];
    const matches = route.segments.every((segment, i) => {
      const part = parts[i]!;
      if (segment !== null) return part === segment;
      values.push(part);
      return part.length > 0;
    });
    if (matches) found.push({ route, values });
  }
  return found;
}

/**
 * Headers of every API answer: what it says (calls' inputs, decisions) is for its caller, so no
 * cache along the way keeps it, and a browser never reads it as anything but its type.
 */
const PRIVATE_ANSWER = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' };

/** Sends a JSON answer. */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...PRIVATE_ANSWER,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

/** Sends an array as JSON lines: one JSON text per element, each ended by a newline. */
export function sendJsonLines(res: ServerResponse, items: readonly unknown[]): void {
  const text = items.map((item) => `${JSON.stringify(item)}\n`).join('');
  res.writeHead(200, {
    ...PRIVATE_ANSWER,
    'content-type': 'application/x-ndjson; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

/** Sends `{error: {code, detail}}` with the code's status. */
export function sendError(res: ServerResponse, error: AirlockError): void {
  noteErrorCode(res, error.code);
  if (error.code === 'payload_too_large') closeAfterAnswer(res);
  if (error.retryAfterSeconds !== undefined) res.setHeader('retry-after', error.retryAfterSeconds);
  sendJson(res, error.status, error.toBody());
}

function decodeParam(value: string): string {
  // Ids and keys are plain text: only a segment with an escape needs decoding.
  if (!value.includes('%')) return value;
  try {
    return decodeURIComponent(value);
  } catch {
    throw new AirlockError('invalid_input', 'a path segment is not valid percent-encoding');
  }
}

/**
 * Carries an `If-Match` ETag into the input's `version` on the operations that
 * take one (an approve bound to the row the person saw). A write that takes
 * no version refuses one, as it refuses a query string: it would act whatever
 * the row is now, where its caller asked it to act only on the row it read.
 * @throws AirlockError invalid_input when the header and the body name different
 *   versions, or the header binds a write that takes no version.
 */
function versionFromIfMatch(
  req: IncomingMessage,
  operation: Operation,
  input: Record<string, unknown>,
): void {
  const header = req.headers['if-match'];
  // `If-Match: *` matches any version (HTTP's meaning): the approve is not bound.
  if (header === undefined || header.trim() === '*') return;
  if (!('version' in operation.input.shape)) {
    if (operation.method === 'GET') return;
    throw new AirlockError(
      'invalid_input',
      `${operation.name} takes no row version, so If-Match cannot bind it; send it without If-Match`,
    );
  }
  // One entity tag, quoted or bare: an approve is bound to one version, so a list is refused.
  const tag = /^(?:W\/)?"([^"]*)"$|^([^",\s]+)$/.exec(header.trim());
  if (!tag) {
    throw new AirlockError(
      'invalid_input',
      'If-Match names one version (the ETag the row was read with), not a list',
    );
  }
  const version = tag[1] ?? tag[2]!;
  if (input.version !== undefined && input.version !== version) {
    throw new AirlockError('invalid_input', 'If-Match and the body name different versions');
  }
  input.version = version;
}

/** An ETag for an answer that carries a row version. */
function etagOf(output: unknown): string | null {
  const version = (output as { version?: unknown } | null)?.version;
  return typeof version === 'string' ? `"${version}"` : null;
}

async function readInput(
  req: IncomingMessage,
  url: URL,
  route: Route,
  fromPath: Readonly<Record<string, string>>,
  limit: number,
): Promise<{ input: Record<string, unknown>; large: boolean; cut: boolean }> {
  // No prototype: a `__proto__` key lands as data, where the guard below sees and refuses it.
  const input: Record<string, unknown> = Object.create(null);
  let large = false;
  let cut = false;
  if (route.operation.method === 'GET') {
    for (const [key, value] of url.searchParams) {
      // One value per parameter: of `order=sideways&order=newest`, none is silently the one.
      if (key in input) throw new AirlockError('invalid_input', `${key}: given more than once`);
      input[key] = route.numbers.has(key) ? decimalQueryNumber(key, value) : value;
    }
  } else {
    // Its input is the body's: a parameter in the query would be dropped unread.
    for (const key of url.searchParams.keys())
      throw queryOnBodyRefusal(route.operation.method, key);
    const encoded = hasUnreadBody(req) ? contentEncodingRefusal(req) : null;
    if (encoded) throw encoded;
    let body: Buffer;
    if (CUT_READ_OPERATIONS.has(route.operation.name)) {
      ({ body, cut } = await readHookBody(req, { limit, operation: route.operation }));
    } else body = await readBody(req, limit);
    if (body.length > 0) {
      const type = req.headers['content-type'] ?? 'application/json';
      if (!JSON_MEDIA_TYPE.test(type)) throw unsupportedMediaType();
      const text = decodeUtf8(body, route.operation);
      checkJsonText(text);
      large = text.length > LARGE_VALUE_CHARACTERS;
      // A large body is read and scanned in one turn, parsed in the next, checked in the one after.
      if (large) await nextTurn(null);
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch (error) {
        throw new AirlockError('invalid_json', `the body is not JSON: ${(error as Error).message}`);
      }
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
        throw new AirlockError('invalid_input', 'the body must be a JSON object');
      }
      for (const [key, value] of Object.entries(parsed)) input[key] = value;
      if (large) await nextTurn(null);
    }
  }
  checkParsedInput(input);
  for (const name of route.params) input[name] = fromPath[name];
  versionFromIfMatch(req, route.operation, input);
  return { input, large, cut };
}

/** Builds the REST handler: answers true when it served the request. */
export function createRestHandler(
  operations: readonly Operation[],
  options: RestOptions,
): (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<boolean> {
  // Routes by their number of segments: a request compares its segments with a few routes, no RegExp.
  const bySegmentCount = new Map<number, Route[]>();
  for (const route of operations.map(compile)) {
    const same = bySegmentCount.get(route.segments.length);
    if (same) same.push(route);
    else bySegmentCount.set(route.segments.length, [route]);
  }
  return async (req, res, url) => {
    const matching = matchRoutes(bySegmentCount, url.pathname);
    if (matching.length === 0) return false;
    // HEAD is a GET whose answer's body Node's server leaves out.
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    const hit = matching.find((m) => m.route.operation.method === method);
    try {
      if (!hit) {
        const allowed: string[] = matching.map((m) => m.route.operation.method);
        if (allowed.includes('GET')) allowed.push('HEAD');
        res.setHeader('allow', allowed.join(', '));
        throw new AirlockError('method_not_allowed', `${req.method} is not served here`);
      }
      const { route, values } = hit;
      noteOperation(res, route.operation.name);
      const principal = await authenticateToken(
        options.kernel,
        bearerToken(req.headers.authorization),
        options.authThrottle ? { throttle: options.authThrottle, peer: peerOf(req) } : null,
      );
      const authenticatedAt = performance.now();
      const fromPath: Record<string, string> = {};
      route.params.forEach((name, i) => {
        fromPath[name] = decodeParam(values[i]!);
      });
      // Plane and workspace are checked before the body is read: a wrong credential learns nothing.
      checkAccess(route.operation, principal, fromPath);
      // Counted once admitted: a refused request (failed authentications have their own per-peer
      // throttle) must not spend the budget of the calls the credential may make.
      options.rateLimiter?.take(principal);
      const limit = Math.max(options.bodyLimit, route.operation.bodyLimitFloor ?? 0);
      const raw = await readInput(req, url, route, fromPath, limit);
      // A body sent slowly: the credential may have been revoked while it came.
      await checkStillActive(options.kernel, principal, authenticatedAt);
      const parsed = route.operation.input.safeParse(raw.input);
      if (!parsed.success) throw invalidInput(parsed.error.issues);
      // The operation handles a large body a turn after its schema checked it.
      if (raw.large) await nextTurn(null);
      await checkRunFence(options.kernel, principal, parsed.data, route.operation);
      const output = await route.operation.handle(
        { kernel: options.kernel, principal, signal: clientGoneSignal(res), bodyCut: raw.cut },
        parsed.data,
      );
      if (options.validateOutputs) route.operation.output.parse(output);
      const lines = route.operation.jsonLines;
      if (lines) {
        sendJsonLines(res, (output as Record<string, unknown[]>)[lines] ?? []);
      } else {
        const etag = route.operation.method === 'GET' ? etagOf(output) : null;
        if (etag) res.setHeader('etag', etag);
        sendJson(res, route.operation.status ?? 200, output);
      }
    } catch (thrown) {
      // A write the store refused (disk full, read-only) is a 503 the client may retry, not a 500.
      const error = asStoreError(thrown);
      // A request refused before its body was read is not read on: the connection closes.
      if (!req.complete) closeAfterAnswer(res);
      if (error instanceof AirlockError && options.validateOutputs && hit) {
        // Tests turn this on: a code the operation does not declare is a contract bug.
        if (!declaresCode(hit.route.operation, error.code) && error.code !== 'method_not_allowed') {
          options.logger.error({ code: error.code }, 'undeclared error code');
          sendError(
            res,
            new AirlockError(
              'internal',
              `${hit.route.operation.name} answered ${error.code}, which its contract does not declare`,
            ),
          );
          return true;
        }
      }
      if (error instanceof AirlockError) {
        sendError(res, error);
      } else {
        // A path segment may be a token (a credential revoked by its token): it never reaches the log.
        options.logger.error({ err: error, path: redactUrl(url.pathname) }, 'request failed');
        sendError(res, new AirlockError('internal', 'internal error'));
      }
    }
    return true;
  };
}
