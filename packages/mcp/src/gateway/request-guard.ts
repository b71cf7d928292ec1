import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
  CancelledNotificationSchema,
  ErrorCode,
  InitializedNotificationSchema,
  InitializeRequestSchema,
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type JSONRPCNotification,
  type JSONRPCRequest,
  ListToolsRequestSchema,
  PingRequestSchema,
  ProgressNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { issuesText } from '../schema-issues.js';
import { checkCall } from './checked-call.js';
import { idInUse } from './json-rpc-envelope.js';

export { ARGUMENT_DEPTH_LIMIT, callParamsProblem, nestsDeeperThan } from './checked-call.js';

/** Requests a client may send before `initialize`, as the MCP lifecycle allows. */
const BEFORE_INITIALIZE = new Set(['initialize', 'ping']);

/** What a schema of the MCP SDK needs of a message: a check that reports its issues. */
interface MessageSchema {
  safeParse(value: unknown): {
    success: boolean;
    error?: { issues: readonly { path: readonly PropertyKey[]; message: string }[] };
  };
}

/**
 * The SDK's schema of each message the gateway's server handles: the SDK
 * parses a message with it inside its handler, and a message that fails
 * answers -32603 with the validation issues dumped as JSON (a notification
 * leaves that dump on stderr), so the guard checks them first.
 */
const MESSAGE_SCHEMAS: ReadonlyMap<string, MessageSchema> = new Map<string, MessageSchema>([
  ['initialize', InitializeRequestSchema],
  ['ping', PingRequestSchema],
  ['tools/list', ListToolsRequestSchema],
  ['tools/call', CallToolRequestSchema],
  ['notifications/initialized', InitializedNotificationSchema],
  ['notifications/cancelled', CancelledNotificationSchema],
  ['notifications/progress', ProgressNotificationSchema],
]);

/**
 * What is wrong with a message the gateway's server handles, in one short
 * line (`tools/list: params.cursor: expected string, received number`), or
 * null when the SDK's own schema takes it.
 */
export function messageProblem(message: JSONRPCRequest | JSONRPCNotification): string | null {
  const schema = MESSAGE_SCHEMAS.get(message.method);
  const checked = schema?.safeParse({ method: message.method, params: message.params });
  if (!checked || checked.success) return null;
  const issues = issuesText(checked.error?.issues ?? [], 'invalid params');
  return `${message.method}: ${issues}`.slice(0, 300);
}

/**
 * The request as the SDK is handed it, or the error it gets before the SDK
 * sees it: a `tools/call` goes on as its one check made it (see `checkCall`),
 * which the gateway's server does not check again.
 */
function guarded(
  request: JSONRPCRequest,
  initialized: boolean,
): { request: JSONRPCRequest; error?: undefined } | { error: { code: number; message: string } } {
  if (!initialized && !BEFORE_INITIALIZE.has(request.method)) {
    return {
      error: {
        code: ErrorCode.InvalidRequest,
        message: `send initialize before ${request.method}`,
      },
    };
  }
  if (request.method === 'tools/call') {
    const call = checkCall(request.params);
    if (call.problem !== undefined) {
      return { error: { code: ErrorCode.InvalidParams, message: call.problem } };
    }
    return { request: { ...request, params: call.request.params } };
  }
  const problem = messageProblem(request);
  return problem ? { error: { code: ErrorCode.InvalidParams, message: problem } } : { request };
}

/** A transport that waits for the answers of the requests it read (the stdio transport). */
export interface AnswerAwaitingTransport extends Transport {
  /** Told of a request the server will not answer: its client cancelled it. */
  requestCancelled?(id: string | number): void;
  /**
   * Set by {@link connectGuarded}: whether a request of this id was delivered
   * and is neither answered nor cancelled yet (a front that maps answers to
   * requests by id, as the HTTP one does, asks before it takes a request).
   */
  requestInFlight?: (id: string | number) => boolean;
}

/** A request a client's `notifications/cancelled` names, and the reason it gave. */
interface Cancellation {
  id: string | number;
  reason: string | undefined;
}

/** The request a delivered `notifications/cancelled` names, or null for none. */
function cancelledRequest(message: JSONRPCNotification): Cancellation | null {
  if (message.method !== 'notifications/cancelled') return null;
  const params = message.params as { requestId?: string | number; reason?: string } | undefined;
  if (params?.requestId === undefined) return null;
  return { id: params.requestId, reason: params.reason };
}

/**
 * Connects `server` to `transport` with a guard in front: a request before
 * `initialize` (other than `ping`) is refused with -32600, and a request the
 * server handles whose params are malformed (`initialize`, `ping`,
 * `tools/list`, `tools/call`) with -32602 and a one-line reason; neither
 * reaches the gateway's handlers, so nothing runs or is recorded. A
 * malformed notification the server handles is dropped, and told to
 * `server.onerror` in one line. A cancellation it delivers is told to the
 * server's `requestCancelled` (with the client's reason), where it has one,
 * before the server hears it, whatever the id: the SDK itself acts on no
 * falsy id (0, ''), so the server stops such a call on its own (it is told
 * of each `tools/call` as it is delivered, `callArrived`); and, for an id
 * the SDK acts on (it then sends no answer), to the transport's.
 */
export async function connectGuarded(
  server: Server & {
    callArrived?: (id: string | number) => void;
    requestCancelled?: (id: string | number, reason?: string) => void;
  },
  transport: AnswerAwaitingTransport,
): Promise<void> {
  await server.connect(transport);
  const deliver = transport.onmessage;
  // The SDK keeps a request's abort, and the server its call, by id alone: a second request of
  // an id in flight would take the first's place, and a cancellation would reach it alone.
  const inFlight = new Set<string | number>();
  transport.requestInFlight = (id) => inFlight.has(id);
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    if (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) {
      if (message.id !== undefined) inFlight.delete(message.id);
    }
    return send(message, options);
  };
  let initialized = false;
  transport.onmessage = (message: JSONRPCMessage, extra) => {
    if (isJSONRPCRequest(message)) {
      // An initialize delivered while connecting (an in-memory client) passed before the guard.
      initialized ||= server.getClientVersion() !== undefined;
      const checked = inFlight.has(message.id)
        ? { error: idInUse(message.id) }
        : guarded(message, initialized);
      if (checked.error) {
        // Sent past the books above: this answer does not settle the request in flight.
        const answer = { jsonrpc: '2.0' as const, id: message.id, error: checked.error };
        void send(answer, { relatedRequestId: message.id }).catch(() => {});
        return;
      }
      inFlight.add(message.id);
      const { request } = checked;
      if (request.method === 'initialize') initialized = true;
      // A task-augmented call is refused by the SDK before any handler runs: nothing to stop.
      const task = (request.params as { task?: unknown } | undefined)?.task;
      if (request.method === 'tools/call' && task === undefined) {
        server.callArrived?.(request.id);
      }
      deliver?.(request, extra);
      return;
    }
    if (isJSONRPCNotification(message)) {
      const problem = messageProblem(message);
      if (problem) {
        server.onerror?.(
          new Error(`the client sent a malformed notification, dropped: ${problem}`),
        );
        return;
      }
      const cancelled = cancelledRequest(message);
      if (cancelled !== null) {
        // A request of a falsy id is still answered: the SDK's cancellation skips it.
        if (cancelled.id) {
          inFlight.delete(cancelled.id);
          transport.requestCancelled?.(cancelled.id);
        }
        server.requestCancelled?.(cancelled.id, cancelled.reason);
      }
    }
    deliver?.(message, extra);
  };
}
