import { SUBSCRIPTION_CONTRACTS } from '@airlock/core';
import { initTRPC, type TRPCDefaultErrorShape, TRPCError, tracked } from '@trpc/server';
import { AirlockError, type ErrorCode } from '../errors.js';
import { nextTurn } from '../event-loop-turn.js';
import { fencedSink } from '../feed/fence.js';
import type { FeedHub } from '../feed/hub.js';
import { prunedResume, resumeAfter, sequenceNumberOf } from '../feed/pruned-position.js';
import type { Kernel } from '../kernel/kernel.js';
import type { Principal } from '../store/accounts.js';
import type { Store } from '../store/store.js';
import { asStoreError } from '../store/store-errors.js';
import { checkAccess, checkFeedRun, checkRunFence, checkStillActive, fenceOf } from './access.js';
import { FeedBacklog } from './feed-backlog.js';
import { checkParsedInput } from './input-guard.js';
import { invalidInput, issuesOf } from './input-problems.js';
import { declaresCode, type Operation } from './operation.js';
import { OPERATIONS } from './operations.js';
import { RateLimitedError, type RateLimiter } from './rate-limit.js';
import { type BodyRefusal, notUtf8Error } from './request-body.js';
import { loggedProcedure } from './trpc-logged-procedure.js';

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

/** Counts the request against the caller's limit. */
function takeRequest(ctx: TrpcContext, principal: Principal): void {
  try {
    ctx.rateLimiter?.take(principal);
  } catch (error) {
    if (error instanceof RateLimitedError) {
      ctx.setHeader('retry-after', String(error.retryAfterSeconds));
    }
    throw toTrpcError(error);
  }
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

function toTrpcError(thrown: unknown): TRPCError {
  if (thrown instanceof TRPCError) return thrown;
  const error = asStoreError(thrown);
  const airlock = error instanceof AirlockError ? error : internalError(error);
  return new TRPCError({
    code: TRPC_CODES[airlock.status] ?? 'INTERNAL_SERVER_ERROR',
    message: airlock.detail,
    cause: airlock,
  });
}

/** The root options every router of the kernel shares: how an error reaches a client. */
const ROOT_OPTIONS = {
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

const t = initTRPC.context<TrpcContext>().create(ROOT_OPTIONS);

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

function authorized(operation: Pick<Operation, 'name' | 'planes' | 'role' | 'errors'>) {
  return t.procedure.use(async ({ ctx, next, getRawInput }) => {
    if (!ctx.principal) {
      if (ctx.authError instanceof RateLimitedError) {
        ctx.setHeader('retry-after', String(ctx.authError.retryAfterSeconds));
      }
      throw toTrpcError(ctx.authError ?? new AirlockError('unauthenticated', 'no token'));
    }
    try {
      checkAccess(operation, ctx.principal, null);
    } catch (error) {
      throw toTrpcError(error);
    }
    try {
      // The workspace the input names, before the schema reads the rest, as REST checks its path's
      // first: another workspace's credential is refused 403 whatever else it sent. Input that
      // cannot be read is refused later, with its own error.
      const raw = ctx.bodyRefusal ? null : await getRawInput().catch(() => null);
      checkAccess(operation, ctx.principal, raw);
    } catch (error) {
      throw toTrpcError(error);
    }
    // Counted once admitted, as on REST: a call refused for its plane or workspace must not spend
    // the budget of the calls the credential may make.
    takeRequest(ctx, ctx.principal);
    if (ctx.bodyRefusal) {
      const { bodyRefusal } = ctx;
      throw toTrpcError(bodyRefusal === 'not_utf8' ? notUtf8Error(operation) : bodyRefusal);
    }
    return next({
      ctx: {
        kernel: ctx.kernel,
        hub: ctx.hub,
        principal: ctx.principal,
        authenticatedAt: ctx.authenticatedAt,
        signal: ctx.signal,
        checkDeclaredCodes: ctx.checkDeclaredCodes === true,
        setHeader: ctx.setHeader,
        largeBody: ctx.largeBody === true,
      },
    });
  });
}

/**
 * Refuses too deep input and `__proto__` keys before the schema reads the
 * input (as REST does), and hands the schema `{}` for a call without input.
 */
const guarded = t.middleware(async ({ ctx, getRawInput, next }) => {
  const { largeBody } = ctx as { largeBody?: boolean };
  // A large body: tRPC's adapter encoded it in this turn; it decodes and parses it in the next,
  // and the schema checks it in the one after.
  if (largeBody) await nextTurn(null);
  try {
    checkParsedInput(await getRawInput());
  } catch (error) {
    throw toTrpcError(error);
  }
  if (largeBody) await nextTurn(null);
  // A call sent without input (tRPC leaves `input` out) is one with every field left out, as
  // REST reads a request without a body or query string: `{}`, which the schema then checks.
  return next({ getRawInput: async () => (await getRawInput()) ?? {} });
});

async function run(
  operation: Operation,
  ctx: {
    kernel: Kernel;
    principal: Principal;
    authenticatedAt: number | undefined;
    signal: AbortSignal | undefined;
    checkDeclaredCodes: boolean;
    setHeader: TrpcContext['setHeader'];
    largeBody: boolean;
  },
  input: unknown,
): Promise<unknown> {
  try {
    // The operation handles a large body a turn after its schema checked it.
    if (ctx.largeBody) await nextTurn(null);
    checkAccess(operation, ctx.principal, input);
    // A body sent slowly: the credential may have been revoked while it came.
    await checkStillActive(ctx.kernel, ctx.principal, ctx.authenticatedAt);
    await checkRunFence(ctx.kernel, ctx.principal, input, operation);
    return await operation.handle(ctx, input as never);
  } catch (thrown) {
    const error = asStoreError(thrown);
    if (error instanceof AirlockError && error.retryAfterSeconds !== undefined) {
      ctx.setHeader('retry-after', String(error.retryAfterSeconds));
    }
    if (ctx.checkDeclaredCodes && error instanceof AirlockError) {
      if (!declaresCode(operation, error.code)) {
        throw toTrpcError(
          new AirlockError(
            'internal',
            `${operation.name} answered ${error.code}, which its contract does not declare`,
          ),
        );
      }
    }
    throw toTrpcError(error);
  }
}

/** One operation as a tRPC procedure: a query for a GET, else a mutation. */
function procedure(operation: Operation) {
  const base = authorized(operation).use(guarded).input(operation.input).output(operation.output);
  return operation.method === 'GET'
    ? base.query(({ ctx, input }) => run(operation, ctx, input))
    : base.mutation(({ ctx, input }) => run(operation, ctx, input));
}

/**
 * The lifecycle feed as a tRPC subscription: every event of the workspace (or
 * one run) after `after`, each tracked by its sequence number so a client that
 * reconnects with `lastEventId` misses nothing.
 */
const FEED = SUBSCRIPTION_CONTRACTS['runs.feed'];

/**
 * Where a feed resumes: after `lastEventId` (an id the feed sent, which
 * EventSource sends back as a header), else `after` (`latest`: the
 * workspace's head, as on the WebSocket feed), else the start.
 * @throws AirlockError invalid_input for an id that is not a sequence number
 *   as the feed writes one (past 2^53 it would be read as another number).
 */
async function resumePosition(
  store: Store,
  workspaceId: string,
  input: { after?: number | 'latest' | undefined; lastEventId?: string | null },
): Promise<number> {
  const { lastEventId } = input;
  if (!lastEventId) return resumeAfter(store, workspaceId, input.after);
  const after = sequenceNumberOf(lastEventId);
  if (after !== undefined) return after;
  const message = 'lastEventId is a sequence number the feed sent: decimal digits up to 2^53 - 1';
  throw new AirlockError('invalid_input', `/lastEventId: ${message}`, [
    { code: 'invalid_format', pointer: '/lastEventId', message },
  ]);
}

const feed = authorized(FEED)
  .use(guarded)
  .input(FEED.query)
  .subscription(async function* ({ ctx, input, signal }) {
    let after = 0;
    try {
      checkAccess(FEED, ctx.principal, input);
      after = await resumePosition(ctx.kernel.context.store, ctx.principal.workspace_id, input);
      // Another application's run is not there for an agent credential, as on REST and the socket.
      await checkRunFence(ctx.kernel, ctx.principal, { run_id: input.run_id ?? null });
      const pruned = await prunedResume(ctx.kernel.context.store, {
        workspaceId: ctx.principal.workspace_id,
        runId: input.run_id ?? null,
        after,
      });
      if (pruned) throw pruned;
      await checkFeedRun(ctx.kernel, ctx.principal, input.run_id ?? null);
      ctx.admitFeed?.();
    } catch (error) {
      throw toTrpcError(error);
    }
    const backlog = new FeedBacklog();
    const subscription = ctx.hub.subscribe({
      workspaceId: ctx.principal.workspace_id,
      runId: input.run_id ?? null,
      after,
      // An agent credential follows only its own application's runs.
      ...fencedSink(ctx.kernel.context.store, fenceOf(ctx.principal), {
        deliver: (items) => backlog.push(items),
        // Retention pruned what the catch-up was about to read: the events before it, then the error.
        refuse: (refusal) => backlog.fail(refusal),
        // The catch-up reads its next page once this client has taken the last.
        drained: () => backlog.drained(),
      }),
    });
    // A revoked credential's subscription ends within the server's recheck, as a socket does.
    const revoked = new AbortController();
    const unwatch = ctx.watchCredential?.(() => revoked.abort());
    try {
      const until = signal ? AbortSignal.any([signal, revoked.signal]) : revoked.signal;
      for await (const item of backlog.drain(until)) yield tracked(String(item.row.seq), item.view);
      if (revoked.signal.aborted) {
        throw new AirlockError('unauthenticated', 'the token was revoked while its feed was open');
      }
    } catch (error) {
      throw toTrpcError(error);
    } finally {
      unwatch?.();
      subscription.close();
    }
  });

type Procedure = ReturnType<typeof procedure> | typeof feed;

/** The procedures grouped by the first part of their dotted names, as tRPC nests them. */
function routes(operations: readonly Operation[]): Record<string, Record<string, Procedure>> {
  const groups: Record<string, Record<string, Procedure>> = { runs: { feed } };
  for (const operation of operations) {
    const [group, name] = operation.name.split('.') as [string, string];
    groups[group] = { ...groups[group], [name]: procedure(operation) };
  }
  return groups;
}

/** Every procedure, built once: each kernel's router (below) only groups them. */
const PROCEDURES = routes(OPERATIONS);

/**
 * A kernel's tRPC router, generated from the same registry as REST and the
 * OpenAPI document: each operation at its dotted name, plus the `runs.feed`
 * subscription. A quiet subscription gets a ping every `pingMs` (as the
 * WebSocket feed does): a proxy that cuts idle streams leaves it open, and a
 * client gone without a word is found when a write to it fails. Clients are
 * told to reconnect after two pings' worth of silence.
 */
export function createAppRouter(options: { pingMs: number }) {
  const root = initTRPC.context<TrpcContext>().create({
    ...ROOT_OPTIONS,
    sse: {
      ping: { enabled: true, intervalMs: options.pingMs },
      client: { reconnectAfterInactivityMs: options.pingMs * 2 + 1_000 },
    },
  });
  return root.router(
    Object.fromEntries(
      Object.entries(PROCEDURES).map(([group, procedures]) => [group, root.router(procedures)]),
    ),
  );
}

/** The router's type. Clients take their types from @airlock/core's contracts instead. */
export type AppRouter = ReturnType<typeof createAppRouter>;
