import { z } from 'zod';
import type { ErrorCode } from './error-codes.js';
import { EventViewSchema, WorkAvailableSchema } from './events.js';
import { IdSchema } from './inputs.js';
import { named } from './registry.js';
import { SUBSCRIPTION_PATHS } from './routes.js';
import type { CredentialKind } from './views.js';

/**
 * The kernel's live subscriptions, declared once beside the operations: the
 * server's upgrade handler and tRPC subscription, the SDK's feeds and the
 * generated reference (the OpenAPI document's `x-airlock-subscriptions`) all
 * read them from here.
 */
export interface SubscriptionContract<
  Q extends z.ZodObject = z.ZodObject,
  M extends z.ZodType = z.ZodType,
> {
  /** Dotted name (for `runs.feed`, the tRPC path). */
  readonly name: string;
  readonly summary: string;
  /** A WebSocket upgrade, or a tRPC subscription (server-sent events). */
  readonly transport: 'websocket' | 'trpc';
  /** The path, with `{param}` segments for the WebSocket ones. */
  readonly path: string;
  /** Which credential kinds may subscribe; any other is refused with 403. */
  readonly planes: readonly CredentialKind[];
  /** The query parameters of the upgrade, or the subscription's tRPC input. */
  readonly query: Q;
  /** Every message the kernel sends on it. */
  readonly messages: M;
  /** The codes a refused subscription answers beyond the common ones. */
  readonly errors: readonly ErrorCode[];
}

/**
 * Where a resume starts: after a sequence number, or `latest` (the head,
 * named by `ready`). The upgrade reads the number from plain decimal digits.
 */
const AfterSchema = z.union([z.literal('latest'), z.number().int().min(0)]);

/** The first message on a socket: the position it starts after. */
export const SocketReadyMessageSchema = named(
  z.object({ type: z.literal('ready'), after: z.number().int().min(0) }),
  { id: 'SocketReady', description: 'The first message: the position the socket starts after.' },
);

/** The answer to a client's `ping` text frame. */
export const SocketPongMessageSchema = z.object({ type: z.literal('pong') });

/** The last message before close 4410: the resume position was pruned; read the state again. */
export const SocketResyncMessageSchema = named(
  z.object({
    type: z.literal('resync'),
    code: z.literal('feed_position_pruned'),
    detail: z.string(),
    /** The position the client asked to resume after. */
    after: z.number().int().min(0),
  }),
  {
    id: 'SocketResync',
    description: 'The resume position was pruned: read the current state, then resume.',
  },
);

/** One lifecycle event on the workspace feed. */
export const FeedEventMessageSchema = z.object({
  type: z.literal('event'),
  event: EventViewSchema,
});

/** What the workspace feed sends. */
export const FeedMessageSchema = z.discriminatedUnion('type', [
  SocketReadyMessageSchema,
  FeedEventMessageSchema,
  SocketResyncMessageSchema,
  SocketPongMessageSchema,
]);
/** A message of the workspace feed. */
export type FeedMessage = z.infer<typeof FeedMessageSchema>;

/** What the executor cable sends. */
export const CableMessageSchema = z.discriminatedUnion('type', [
  SocketReadyMessageSchema,
  WorkAvailableSchema,
  SocketResyncMessageSchema,
  SocketPongMessageSchema,
]);
/** A message of the executor cable. */
export type CableMessage = z.infer<typeof CableMessageSchema>;

/** A token as a query parameter, for clients that cannot set headers on an upgrade (browsers). */
const accessToken = z
  .string()
  .optional()
  .describe('the bearer token, for clients that cannot send an Authorization header');

const SOCKET_ERRORS = ['not_found', 'feed_position_pruned'] as const satisfies ErrorCode[];

/** The live subscriptions by name. */
export const SUBSCRIPTION_CONTRACTS = {
  feed: {
    name: 'feed',
    summary:
      "The workspace's lifecycle events over WebSocket, resumable from a sequence number; an agent credential sees its own application's runs.",
    transport: 'websocket',
    path: SUBSCRIPTION_PATHS.feed,
    planes: ['agent', 'member'],
    // Strict: the socket refuses a parameter it does not read (a misspelt run_id).
    query: z.strictObject({
      run_id: IdSchema.optional().describe('only this run'),
      after: AfterSchema.optional().describe('resume after this sequence number, or latest'),
      access_token: accessToken,
    }),
    messages: FeedMessageSchema,
    // run_not_found: a run_id the workspace does not hold, or another application's run.
    errors: [...SOCKET_ERRORS, 'run_not_found'],
  },
  'executor.cable': {
    name: 'executor.cable',
    summary:
      "`work_available` nudges for the executor's application: a hint to claim, never a claim.",
    transport: 'websocket',
    path: SUBSCRIPTION_PATHS['executor.cable'],
    planes: ['executor'],
    query: z.strictObject({
      after: AfterSchema.optional().describe('resume after this sequence number, or latest'),
      access_token: accessToken,
    }),
    messages: CableMessageSchema,
    errors: SOCKET_ERRORS,
  },
  'runs.feed': {
    name: 'runs.feed',
    summary:
      'The lifecycle events as a tRPC subscription, each tracked by its sequence number (`lastEventId` resumes).',
    transport: 'trpc',
    path: SUBSCRIPTION_PATHS['runs.feed'],
    planes: ['agent', 'member'],
    query: z.strictObject({
      workspace_id: IdSchema,
      run_id: IdSchema.optional(),
      after: AfterSchema.optional().describe(
        'resume after this sequence number, or latest (the head: no history)',
      ),
      lastEventId: z.string().regex(/^\d+$/).nullish(),
    }),
    messages: EventViewSchema,
    // `unavailable`: the subscriber fell 8 MB behind; it resumes with `lastEventId`.
    // `run_not_found`: another application's run, for an agent credential.
    errors: ['feed_position_pruned', 'unavailable', 'run_not_found'],
  },
} as const satisfies Record<string, SubscriptionContract>;

/** A subscription's name. */
export type SubscriptionName = keyof typeof SUBSCRIPTION_CONTRACTS;
