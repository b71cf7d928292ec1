import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
  CancelledNotificationSchema,
  ErrorCode,
  InitializedNotificationSchema,
  InitializeRequestSchema,
  isJSONRPCNotification,
  isJSONRPCRequest,
  type JSONRPCMessage,
  type JSONRPCNotification,
  type JSONRPCRequest,
  ListToolsRequestSchema,
  PingRequestSchema,
  ProgressNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { issuesText } from '../schema-issues.js';

/**
 * The deepest nesting a call's `arguments` may have (the object itself is
 * level 1): the kernel refuses a request body nesting past 64 levels, and
 * the arguments sit at level 4 of the submit that carries them.
 */
export const ARGUMENT_DEPTH_LIMIT = 61;

/** Requests a client may send before `initialize`, as the MCP lifecycle allows. */
const BEFORE_INITIALIZE = new Set(['initialize', 'ping']);

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Whether `value` nests arrays and objects deeper than `limit`, read without recursion. */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop() as [unknown, number];
    if (typeof current !== 'object' || current === null) continue;
    if (depth > limit) return true;
    for (const child of Object.values(current)) stack.push([child, depth + 1]);
  }
  return false;
}

/**
 * What is wrong with a `tools/call`'s params, in one line for the client,
 * or null when they can be sent on: the SDK's own check answers -32603
 * with a validation dump, and very deep arguments overflow its stack.
 */
export function callParamsProblem(params: unknown): string | null {
  if (!isPlainObject(params)) return 'tools/call needs params {"name": "...", "arguments": {...}}';
  if (typeof params.name !== 'string') return 'params.name must be the tool name, a string';
  const { arguments: input } = params;
  if (input !== undefined && !isPlainObject(input)) {
    return 'params.arguments must be an object of the tool input';
  }
  if (nestsDeeperThan(input, ARGUMENT_DEPTH_LIMIT)) {
    return `params.arguments nest deeper than ${ARGUMENT_DEPTH_LIMIT} levels`;
  }
  return null;
}

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

/** The error a request gets before the SDK sees it, or null to let it through. */
function refusal(request: JSONRPCRequest, initialized: boolean) {
  if (!initialized && !BEFORE_INITIALIZE.has(request.method)) {
    return {
      code: ErrorCode.InvalidRequest,
      message: `send initialize before ${request.method}`,
    };
  }
  // The call's own check first: its deep arguments would overflow the schema's recursion.
  const problem =
    (request.method === 'tools/call' ? callParamsProblem(request.params) : null) ??
    messageProblem(request);
  return problem ? { code: ErrorCode.InvalidParams, message: problem } : null;
}

/** A transport that waits for the answers of the requests it read (the stdio transport). */
export interface AnswerAwaitingTransport extends Transport {
  /** Told of a request the server will not answer: its client cancelled it. */
  requestCancelled?(id: string | number): void;
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
  let initialized = false;
  transport.onmessage = (message: JSONRPCMessage, extra) => {
    if (isJSONRPCRequest(message)) {
      // An initialize delivered while connecting (an in-memory client) passed before the guard.
      initialized ||= server.getClientVersion() !== undefined;
      const error = refusal(message, initialized);
      if (error) {
        const answer = { jsonrpc: '2.0' as const, id: message.id, error };
        void transport.send(answer, { relatedRequestId: message.id }).catch(() => {});
        return;
      }
      if (message.method === 'initialize') initialized = true;
      // A task-augmented call is refused by the SDK before any handler runs: nothing to stop.
      const task = (message.params as { task?: unknown } | undefined)?.task;
      if (message.method === 'tools/call' && task === undefined) {
        server.callArrived?.(message.id);
      }
    } else if (isJSONRPCNotification(message)) {
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
        if (cancelled.id) transport.requestCancelled?.(cancelled.id);
        server.requestCancelled?.(cancelled.id, cancelled.reason);
      }
    }
    deliver?.(message, extra);
  };
}
