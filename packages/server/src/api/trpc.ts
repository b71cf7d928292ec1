import { SUBSCRIPTION_CONTRACTS } from '@airlock/core';
import { initTRPC, tracked } from '@trpc/server';
import { AirlockError } from '../errors.js';
import { nextTurn } from '../event-loop-turn.js';
import { fencedSink } from '../feed/fence.js';
import { prunedResume, resumeAfter, sequenceNumberOf } from '../feed/pruned-position.js';
import type { Kernel } from '../kernel/kernel.js';
import type { Principal } from '../store/accounts.js';
import type { Store } from '../store/store.js';
import { asStoreError } from '../store/store-errors.js';
import { checkAccess, checkFeedRun, checkRunFence, checkStillActive, fenceOf } from './access.js';
import { FeedBacklog } from './feed-backlog.js';
import { checkParsedInput } from './input-guard.js';
import { declaresCode, type Operation } from './operation.js';
import { OPERATIONS } from './operations.js';
import { RateLimitedError } from './rate-limit.js';
import { notUtf8Error } from './request-body.js';
import { ROOT_OPTIONS, type TrpcContext, toTrpcError } from './trpc-errors.js';

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

const t = initTRPC.context<TrpcContext>().create(ROOT_OPTIONS);

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
