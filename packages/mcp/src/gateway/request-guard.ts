import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ErrorCode,
  isJSONRPCRequest,
  type JSONRPCMessage,
  type JSONRPCRequest,
} from '@modelcontextprotocol/sdk/types.js';

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

/** The error a request gets before the SDK sees it, or null to let it through. */
function refusal(request: JSONRPCRequest, initialized: boolean) {
  if (!initialized && !BEFORE_INITIALIZE.has(request.method)) {
    return {
      code: ErrorCode.InvalidRequest,
      message: `send initialize before ${request.method}`,
    };
  }
  if (request.method !== 'tools/call') return null;
  const problem = callParamsProblem(request.params);
  return problem ? { code: ErrorCode.InvalidParams, message: problem } : null;
}

/**
 * Connects `server` to `transport` with a guard in front: a request before
 * `initialize` (other than `ping`) is refused with -32600, and a
 * `tools/call` whose params are malformed with -32602 and a one-line reason;
 * neither reaches the gateway's handlers, so nothing runs or is recorded.
 */
export async function connectGuarded(server: Server, transport: Transport): Promise<void> {
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
    }
    deliver?.(message, extra);
  };
}
