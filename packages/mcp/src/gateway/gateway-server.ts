import { isStorableText, traceparentOf } from '@airlock/core';
import { CALL_ID_MAX } from '@airlock/core/wire';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { Protocol, type RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  type CallToolRequest,
  type CallToolResult,
  CallToolResultSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type ServerNotification,
  type ServerRequest,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { eitherSignal } from '../either-signal.js';
import type { BridgedTool, ProgressListener } from '../executor-bridge.js';
import { hasErrorCode } from '../kernel-api.js';
import type { CallRequest, WaitingListener } from './call-request.js';
import { checkCall } from './checked-call.js';
import type { GatewaySession } from './gateway-session.js';
import { askInline, canAskInline } from './inline-approval.js';

/** What this package tells MCP clients it is. */
export const GATEWAY_INFO = { name: 'airlock-gateway', version: '0.0.0' };

/** How often a parked call tells its client it still waits; default 1 s. */
const PROGRESS_EVERY_MS = 1000;
/** The most often a running tool's progress is passed on: a server may send it without pause. */
const SERVER_PROGRESS_EVERY_MS = 100;

/** The bridged tools as the gateway lists them: prefixed names, the servers' own schemas. */
export function listedTools(tools: ReadonlyMap<string, BridgedTool>): Tool[] {
  return [...tools].map(([name, { tool }]) => {
    const listed: Tool = { name, inputSchema: tool.inputSchema };
    if (tool.title !== undefined) listed.title = tool.title;
    if (tool.description !== undefined) listed.description = tool.description;
    if (tool.outputSchema !== undefined) listed.outputSchema = tool.outputSchema;
    if (tool.annotations !== undefined) listed.annotations = tool.annotations;
    return listed;
  });
}

/**
 * The request's id as its row keeps it, or undefined when the kernel would
 * refuse it (over {@link CALL_ID_MAX} characters, or holding NUL or a lone
 * surrogate): JSON-RPC takes any string as an id, and the row's copy only
 * helps a person find the call, so it must not cost the call.
 */
export function recordedCallId(requestId: string | number): string | undefined {
  const id = String(requestId);
  return id.length <= CALL_ID_MAX && isStorableText(id) ? id : undefined;
}

/** What the SDK's dispatch reads of a `tools/call`: its method (see {@link checkCall}). */
const ToolsCallSchema = z.looseObject({ method: z.literal('tools/call') });

/** An error the SDK answers as -32602 with its message as it is (an McpError's carries its code again). */
function invalidParams(message: string): Error {
  return Object.assign(new Error(message), { code: ErrorCode.InvalidParams });
}

/**
 * The result as the MCP SDK's server checked it before answering a call: a
 * row another executor committed may hold content no MCP client takes.
 * @throws McpError -32602 naming the problems, as the SDK's check did.
 */
function checkedResult(result: CallToolResult): CallToolResult {
  const checked = CallToolResultSchema.safeParse(result);
  if (checked.success) return checked.data;
  throw new McpError(
    ErrorCode.InvalidParams,
    `Invalid tools/call result: ${checked.error.message}`,
  );
}

/** What the SDK hands a request handler of the gateway's server. */
type CallExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** Kernel refusals that are the client's mistake in its arguments. */
const CLIENT_MISTAKES = ['payload_too_large', 'input_too_deep', 'invalid_input'] as const;

/**
 * Sends a call through the session; a kernel refusal of its arguments is
 * the client's mistake and answers -32602 with the kernel's one-line reason.
 */
async function answerOrRefuse(session: GatewaySession, request: CallRequest) {
  try {
    return await session.call(request);
  } catch (error) {
    if (hasErrorCode(error, ...CLIENT_MISTAKES)) {
      throw Object.assign(new Error(`${error.code}: ${error.detail}`), {
        code: ErrorCode.InvalidParams,
      });
    }
    throw error;
  }
}

/**
 * The gateway's MCP server, told by the guard in front of it (see
 * `connectGuarded`) of each `notifications/cancelled` it delivers.
 */
export type GatewayServer = Server & {
  /**
   * Told of a `tools/call` as it is delivered, before its handler starts: a
   * cancellation read right behind it (the same stdio chunk) finds it.
   */
  callArrived(id: string | number): void;
  /** How many `tools/call`s were delivered and are not answered yet. */
  readonly callsInFlight: number;
  /**
   * Cancels an in-flight `tools/call` for its client, with the client's
   * reason: marked cancelled (not left by a disconnect) and stopped, also
   * where the SDK does not stop it (a falsy id, 0 or '').
   */
  requestCancelled(id: string | number, reason?: string): void;
};

/**
 * An MCP server for one client session: `tools/list` lists the bridged
 * tools; `tools/call` goes through the session's gateway run. While a call is
 * parked, a client that asked for progress gets a `notifications/progress`
 * every second naming the row a person must decide, and while its tool runs
 * here, the server's own progress on it; a client with a
 * member's credential that supports elicitation is also asked to decide it
 * inline (see `inline-approval.ts`).
 */
export function createGatewayServer(options: {
  tools: ReadonlyMap<string, BridgedTool>;
  session: (clientName: string) => GatewaySession;
  progressEveryMs?: number | undefined;
  /** Told when the client's session starts ending, with the promise of its end. */
  onSessionEnding?: ((ending: Promise<void>) => void) | undefined;
}): GatewayServer {
  const server = new Server(GATEWAY_INFO, {
    capabilities: { tools: {} },
    instructions:
      'Every tool call passes the Airlock approval stage: it may run at once, be refused, or wait until a person approves it.',
  });
  let closed = false;
  let session: GatewaySession | null = null;
  // The calls in flight, each with its own abort, and those of them the client cancelled: the
  // SDK aborts a call's signal alike on its cancellation and on a close, which may come right
  // behind the cancellation, and not at all on the cancellation of a falsy id (0, '').
  const callsInFlight = new Map<string | number, AbortController>();
  const cancelledCalls = new Set<string | number>();
  const sessionOf = () => {
    if (!session) {
      const client = server.getClientVersion();
      session = options.session(client ? `${client.name} ${client.version}` : 'an MCP client');
    }
    return session;
  };
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: listedTools(options.tools),
  }));
  /** One `tools/call`, stopped by `signal`: the SDK's abort or the client's cancellation. */
  const callTool = async (request: CallToolRequest, extra: CallExtra, signal: AbortSignal) => {
    const { name } = request.params;
    if (!options.tools.has(name)) {
      // Not an McpError: its message already carries "MCP error -32602:", which the client adds again.
      throw Object.assign(new Error(`no tool ${name} behind this gateway`), {
        code: ErrorCode.InvalidParams,
      });
    }
    const progressToken = request.params._meta?.progressToken;
    const current = sessionOf();
    const { requestId } = extra;
    const withdraw = new AbortController();
    let asked = false;
    let progress = 0;
    let lastSent = Number.NEGATIVE_INFINITY;
    const every = options.progressEveryMs ?? PROGRESS_EVERY_MS;
    const onWaiting: WaitingListener = async (task, elapsedMs) => {
      if (!asked && canAskInline(server, current)) {
        asked = true;
        // A decision the kernel refused (a guardrail since, the approval policy) leaves the
        // call waiting: said where the gateway's errors go, never dropped unseen.
        const question = { server, session: current, task, signal: withdraw.signal };
        void askInline({ ...question, relatedRequestId: requestId }).catch((error: unknown) =>
          server.onerror?.(
            new Error(
              `the decision the client's user gave inline on call ${task.key} was not recorded, and the call still waits: ${error instanceof Error ? error.message : String(error)}`,
            ),
          ),
        );
      }
      if (progressToken === undefined || elapsedMs - lastSent < every) return;
      lastSent = elapsedMs;
      progress += 1;
      await extra.sendNotification({
        method: 'notifications/progress',
        params: {
          progressToken,
          progress,
          message: `waiting for a person to approve ${name} (run ${task.run_id}, task ${task.key})`,
        },
      });
    };
    // The server's progress on the running tool follows the parked call's: each value goes up.
    let offset: number | null = null;
    let relayed = Number.NEGATIVE_INFINITY;
    let relayedAt = Number.NEGATIVE_INFINITY;
    const onProgress: ProgressListener = (reported) => {
      // Past the last parked value: a server's count may start at 0.
      offset ??= progress === 0 ? 0 : progress + 1;
      const value = offset + reported.progress;
      // MCP asks each value to go up; a flood is passed on at most every SERVER_PROGRESS_EVERY_MS.
      const now = performance.now();
      if (value <= relayed || now - relayedAt < SERVER_PROGRESS_EVERY_MS) return;
      relayed = value;
      relayedAt = now;
      const params = {
        progressToken: progressToken as string | number,
        progress: value,
        ...(reported.total === undefined ? {} : { total: offset + reported.total }),
        ...(reported.message === undefined ? {} : { message: reported.message }),
      };
      void extra.sendNotification({ method: 'notifications/progress', params }).catch(() => {});
    };
    try {
      return await answerOrRefuse(current, {
        name,
        input: request.params.arguments ?? {},
        callId: recordedCallId(extra.requestId),
        signal,
        cancelRequested: () => cancelledCalls.has(requestId) || !closed,
        onWaiting,
        onProgress: progressToken === undefined ? undefined : onProgress,
        // OpenTelemetry's MCP convention carries the client's trace context in `_meta`.
        traceparent: traceparentOf(request.params._meta?.traceparent),
      });
    } finally {
      // Withdraws the inline question, when one was asked (an abort builds a DOMException).
      if (asked) withdraw.abort();
    }
  };
  // Past the SDK's Server, whose own handler of tools/call checked each call twice more (its
  // schema, then the base class's parse with it): the call is checked once (checkCall), by the
  // guard in front or here, and its result as the SDK's did (checkedResult).
  Protocol.prototype.setRequestHandler.call(server, ToolsCallSchema, async (received, extra) => {
    const call = checkCall(received.params);
    if (call.problem !== undefined) throw invalidParams(call.problem);
    const { request } = call;
    const { requestId } = extra;
    // Made as the guard delivered the call (callArrived), or here for a call it did not see.
    const cancellation = callsInFlight.get(requestId) ?? new AbortController();
    callsInFlight.set(requestId, cancellation);
    const stopped = eitherSignal(extra.signal, cancellation.signal);
    try {
      return checkedResult(await callTool(request, extra, stopped.signal));
    } finally {
      stopped.release();
      if (callsInFlight.get(requestId) === cancellation) callsInFlight.delete(requestId);
      cancelledCalls.delete(requestId);
    }
  });
  server.onclose = () => {
    closed = true;
    if (!session) return;
    const ending = session.close().catch((error: unknown) => server.onerror?.(error as Error));
    options.onSessionEnding?.(ending);
  };
  // A getter, which Object.assign would read once instead of copying.
  Object.defineProperty(server, 'callsInFlight', { get: () => callsInFlight.size });
  return Object.assign(server as Server & { readonly callsInFlight: number }, {
    callArrived(id: string | number) {
      callsInFlight.set(id, new AbortController());
    },
    requestCancelled(id: string | number, reason?: string) {
      // Only a call still in flight: ids of answered calls would pile up.
      const call = callsInFlight.get(id);
      if (!call) return;
      cancelledCalls.add(id);
      call.abort(reason);
    },
  });
}
