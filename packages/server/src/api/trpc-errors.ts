import { type TRPCDefaultErrorShape, TRPCError } from '@trpc/server';
import { AirlockError, type ErrorCode } from '../errors.js';
import type { FeedHub } from '../feed/hub.js';
import type { Kernel } from '../kernel/kernel.js';
import type { Principal } from '../store/accounts.js';
import { asStoreError } from '../store/store-errors.js';
import { invalidInput, issuesOf } from './input-problems.js';
import type { RateLimiter } from './rate-limit.js';
import type { BodyRefusal } from './request-body.js';
import { loggedProcedure } from './trpc-logged-procedure.js';

// What a tRPC call runs with, and how a failure reaches its client: the kernel's error table in
// tRPC's terms and back.

/** What every tRPC call runs with. */
export interface TrpcContext {
  kernel: Kernel;
  hub: FeedHub;
  principal: Principal | null;
  /** When the principal was authenticated (`performance.now()`), before the body was read. */
  authenticatedAt?: number | undefined;
  authError: AirlockError | null;
  /** Aborted when the client closed the request before its answer was written (OperationContext.signal). */
  signal?: AbortSignal | undefined;
  /** What reading the body found wrong (bytes that are not UTF-8, a body past the limit). */
  bodyRefusal?: BodyRefusal | null | undefined;
  /** A body past the large-value threshold: parsed, checked and handled in turns of their own. */
  largeBody?: boolean | undefined;
  /** Per-credential request limit; none when null. */
  rateLimiter: RateLimiter | null;
  /** Calls `revoked` once the request's credential stops working; returns the unwatch. */
  watchCredential?: ((revoked: () => void) => () => void) | undefined;
  /** Refuses a feed past the credential's open-feed cap (rate_limited). */
  admitFeed?: (() => void) | undefined;
  /** Refuses, as `internal`, a code the operation's contract does not declare (tests turn this on). */
  checkDeclaredCodes?: boolean | undefined;
  /** Sets a header of the answer (Retry-After on a refused request). */
  setHeader(name: string, value: string): void;
  /** Records the error code the request is answered with (metrics, traces). */
  noteError?: ((code: string) => void) | undefined;
}

const TRPC_CODES: Record<number, TRPCError['code']> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_SUPPORTED',
  408: 'TIMEOUT',
  409: 'CONFLICT',
  410: 'PRECONDITION_FAILED',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  422: 'UNPROCESSABLE_CONTENT',
  429: 'TOO_MANY_REQUESTS',
  503: 'SERVICE_UNAVAILABLE',
};

/** The answer to a failure the kernel has no code for; it keeps the failure for the log. */
function internalError(thrown: unknown): AirlockError {
  const error = new AirlockError('internal', 'internal error');
  error.cause = thrown;
  return error;
}

export function toTrpcError(thrown: unknown): TRPCError {
  if (thrown instanceof TRPCError) return thrown;
  const error = asStoreError(thrown);
  const airlock = error instanceof AirlockError ? error : internalError(error);
  return new TRPCError({
    code: TRPC_CODES[airlock.status] ?? 'INTERNAL_SERVER_ERROR',
    message: airlock.detail,
    cause: airlock,
  });
}

/**
 * The most calls one tRPC batch request may carry. Each call is a request to
 * the kernel (it takes its own from the rate limit); without a bound one HTTP
 * request could carry a URL's worth of them (about 1,500 writes), which REST,
 * one operation a request, never lets a client do.
 */
export const MAX_TRPC_BATCH = 50;

/** tRPC's refusal of a batch past {@link MAX_TRPC_BATCH} (its message is all that tells it apart). */
const BATCH_TOO_LARGE = 'Batch call exceeds maximum size';

/** tRPC's own failures (before a procedure runs), in the kernel's error table. */
const TRPC_FAILURES: Partial<Record<TRPCError['code'], ErrorCode>> = {
  PARSE_ERROR: 'invalid_json',
  NOT_FOUND: 'not_found',
  METHOD_NOT_SUPPORTED: 'method_not_allowed',
  PAYLOAD_TOO_LARGE: 'payload_too_large',
  UNSUPPORTED_MEDIA_TYPE: 'unsupported_media_type',
};

/** The kernel error behind a tRPC failure: the thrown one, input issues as `invalid_input`, or tRPC's own. */
function airlockCause(error: TRPCError): AirlockError {
  if (error.cause instanceof AirlockError) return error.cause;
  // tRPC reports input that does not parse as JSON as BAD_REQUEST, its cause JSON.parse's error.
  if (error.code === 'BAD_REQUEST' && error.cause instanceof SyntaxError) {
    return new AirlockError('invalid_json', 'the input is not JSON');
  }
  if (error.code === 'BAD_REQUEST' && error.message === BATCH_TOO_LARGE) {
    return new AirlockError(
      'invalid_input',
      `a tRPC batch holds at most ${MAX_TRPC_BATCH} calls; send the rest in another request`,
    );
  }
  const issues = error.code === 'BAD_REQUEST' ? issuesOf(error.cause) : null;
  if (issues) return invalidInput(issues);
  if (error.code === 'BAD_REQUEST') return new AirlockError('invalid_input', error.message);
  const code = TRPC_FAILURES[error.code];
  return code ? new AirlockError(code, error.message) : internalError(error.cause ?? error);
}

/** The root options every router of the kernel shares: how an error reaches a client. */
export const ROOT_OPTIONS = {
  errorFormatter({
    shape,
    error,
    ctx,
  }: {
    shape: TRPCDefaultErrorShape;
    error: TRPCError;
    ctx: TrpcContext | undefined;
  }) {
    const cause = airlockCause(error);
    ctx?.noteError?.(cause.code);
    if (cause.code === 'internal') {
      // As REST logs it (api/rest.ts): the operation's name, never its input (it may hold a token).
      ctx?.kernel.context.logger.error(
        { err: cause.cause ?? error.cause ?? error, operation: loggedProcedure(shape.data.path) },
        'request failed',
      );
    }
    const body = cause.toBody().error;
    return {
      ...shape,
      message: body.detail,
      // The status of the kernel's table, which tRPC answers with: its own codes have no 410
      // (feed_position_pruned would go out as 412 PRECONDITION_FAILED, where REST says 410).
      data: { ...shape.data, httpStatus: cause.status, stack: undefined, error: body },
    };
  },
};
