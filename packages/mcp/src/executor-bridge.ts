import { CLAIM_TOOL_NAMES_MAX } from '@airlock/core/wire';
import {
  type ClaimView,
  createExecutor,
  type Executor,
  type RunClaimedOptions,
  type TaskView,
  type ToolContext,
  ToolError,
  type ToolHandler,
} from '@airlock/sdk';
import type { CallToolResult, Progress, Tool } from '@modelcontextprotocol/sdk/types.js';
import { eitherSignal } from './either-signal.js';
import {
  manifestEntries,
  prefixedName,
  resendableAfterExit,
  type ToolManifestEntry,
} from './manifest.js';
import { McpServerConnection } from './mcp-connection.js';
import { type Registration, registerTools } from './profile-registration.js';
import { checkServerNames, type NamedServer } from './servers-config.js';
import { checkToolNames } from './tool-names.js';

/** Options of {@link startExecutorBridge}. */
export interface ExecutorBridgeOptions {
  /** The kernel's base URL. */
  url: string;
  /** An executor credential: claims and commits the bridged tools' rows. */
  executorToken: string;
  /**
   * An agent credential: when given, the servers' tools are registered in the
   * agent's profile configuration (see `profile-registration.ts`).
   */
  agentToken?: string | undefined;
  /**
   * The workspace of both credentials, when known (the gateway always gives
   * it); without it each credential is read in its own workspace. Given an
   * agent credential, the bridge refuses to start unless it is of the
   * executor credential's application (see `checkOneApplication`).
   */
  workspaceId?: string | undefined;
  servers: readonly NamedServer[];
  /**
   * How long each request to the kernel waits for its answer, in
   * milliseconds (a DeadlineExceededError past it); default 30 s.
   */
  timeoutMs?: number | undefined;
  /** The lease asked for on each claim (heartbeated while the tool runs); default 30 s. */
  leaseMs?: number | undefined;
  /**
   * The kernel's request body limit in bytes (its `--body-limit`); default
   * 1 MiB, the kernel's default. A result that may not fit is told to `onRan`
   * only once committed (see the SDK executor's `bodyLimit`).
   */
  bodyLimit?: number | undefined;
  /** Told about failures that have nobody else to tell. */
  onError?: ((error: Error) => void) | undefined;
}

/** How a row the bridge runs for a gateway session is run. */
export interface BridgeRunOptions extends RunClaimedOptions {
  /**
   * The client's cancellation of the call: a row it aborted before its tool
   * started commits the failure `client_canceled` instead of running (the
   * kernel keeps `canceled` for the rows it cancels itself); one aborted while
   * its tool runs cancels the server's `tools/call` and commits the same.
   */
  canceled?: AbortSignal | undefined;
}

/** How {@link ExecutorBridge.take} claims a row. */
export interface BridgeTakeOptions extends Pick<BridgeRunOptions, 'canceled'> {
  /**
   * The row's tool, as its caller read it: a tool the bridge does not serve
   * claims nothing (null), where a claim would fail the row `unknown_tool`
   * that another executor serves. Without it the row is claimed whatever its
   * tool, as by any executor's `take`.
   */
  toolName?: string | undefined;
}

/**
 * The most tool names one claim of the kernel names. A bridge serving more
 * still runs them all on its one executor, which claims for them in groups
 * of this many.
 */
export const EXECUTOR_TOOLS_MAX = CLAIM_TOOL_NAMES_MAX;

/** The failure a row commits when its client canceled the call (before or while its tool ran). */
const CLIENT_CANCELED = 'client_canceled';

/** One bridged tool: the server serving it and its own (unprefixed) name. */
export interface BridgedTool {
  server: string;
  tool: Tool;
  entry: ToolManifestEntry;
}

/** A running bridge. */
export interface ExecutorBridge {
  /** Every bridged tool, by its prefixed name. */
  readonly tools: ReadonlyMap<string, BridgedTool>;
  /** The connection of each server, by name. */
  readonly connections: ReadonlyMap<string, McpServerConnection>;
  /** The profile version the registration made, or null when none was made. */
  readonly registeredVersion: number | null;
  /**
   * What registering the tools did: no agent credential given (`not_asked`), a new profile
   * version (`registered`), nothing to change (`unchanged`), or nothing because the agent has
   * no profile yet to register them in (`no_profile`).
   */
  readonly registration: Registration;
  /**
   * True when the agent's profile selects a permission rule set and declares
   * no tool manifest, so the tools' manifest entries were left out of it (a
   * manifest of these tools alone would make every other tool of the agent
   * ask a person).
   */
  readonly manifestLeftOut: boolean;
  /**
   * Claims a granted row by its address and runs it here, resolving with the
   * row as committed; null when it is not this bridge's to run (see the SDK
   * executor's `take`). `options`: see {@link BridgeTakeOptions}.
   */
  take(runId: string, taskKey: string, options?: BridgeTakeOptions): Promise<TaskView | null>;
  /**
   * Runs a row its gateway session claimed in its own round (see
   * `runs.calls`' `claim`), resolving with the row as committed; null when
   * the bridge closes first or the claim was lost. `options.sentAt`: when
   * the request that got the claim was sent (`performance.now()`); the lease
   * counts from it; `options.canceled`: see {@link BridgeRunOptions}.
   */
  runClaimed(claim: ClaimView, options?: BridgeRunOptions): Promise<TaskView | null>;
  /** The lease each claim of this bridge asks for (heartbeated while the tool runs). */
  readonly leaseMs: number;
  /**
   * Settles with the error that ended the bridge's executor by itself (its
   * credential revoked, a refusal asking again would not mend); stays
   * pending while it serves, and after `close()`.
   */
  readonly ended: Promise<Error>;
  /** Whether this bridge runs the row now (its commit is still to come). */
  holds(runId: string, taskKey: string): boolean;
  /**
   * Tells the bridge the client's cancellation of a row for as long as its
   * call waits (until the returned undo): however this bridge comes to run
   * the row (its own claim, or the executor's drain of its inbox), the
   * cancellation reaches the tool as with {@link BridgeRunOptions.canceled}.
   */
  cancelWith(runId: string, taskKey: string, canceled: AbortSignal): () => void;
  /**
   * Tells `listener` the server's progress on a row for as long as its call
   * waits (until the returned undo), however this bridge comes to run it:
   * the server's `tools/call` then carries a `progressToken`.
   */
  progressTo(runId: string, taskKey: string, listener: ProgressListener): () => void;
  /** Tells `listener` of every row this bridge commits; returns its removal. */
  onCommitted(listener: (task: TaskView) => void): () => void;
  /**
   * Tells `listener` of every row this bridge ran, as it will commit, before
   * the commit goes out; returns its removal.
   */
  onRan(listener: (task: TaskView) => void): () => void;
  /**
   * Leaves the nudges of a run's rows to its owner in this process (a
   * gateway session, which takes its granted rows itself); returns the undo.
   */
  leaveRun(runId: string): () => void;
  /** Stops claiming, lets running calls commit, and stops the servers. */
  close(): Promise<void>;
}

/** Told each progress notification a server sends about a call it runs. */
export type ProgressListener = (progress: Progress) => void;

/** The text of an MCP result's text blocks (what a failed row's detail carries). */
export function resultText(result: CallToolResult): string {
  const texts = result.content
    .filter((block): block is { type: 'text'; text: string } => block.type === 'text')
    .map((block) => block.text);
  return texts.length > 0 ? texts.join('\n') : JSON.stringify(result.content);
}

/**
 * Serves one bridged tool: calls it on its server and answers what the row
 * commits. A result the server marks `isError` fails the row (`tool_error`,
 * its text as the detail), which the model reads like any failure. The
 * client's cancellation of the row (`canceledOf`) stops the server's call.
 */
function handlerFor(
  connection: McpServerConnection,
  tool: Tool,
  follow: {
    canceledOf: (context: ToolContext) => AbortSignal | undefined;
    progressOf: (context: ToolContext) => ProgressListener | undefined;
  },
): ToolHandler {
  return async (input, context) => {
    const canceled = follow.canceledOf(context);
    if (canceled?.aborted) {
      throw new ToolError(CLIENT_CANCELED, 'the MCP client canceled the call before its tool ran');
    }
    let result: CallToolResult;
    // The server hears the cancellation as the MCP client's `notifications/cancelled`.
    const { signal, release } = canceled
      ? eitherSignal(context.signal, canceled)
      : { signal: context.signal, release: () => {} };
    try {
      result = await connection.callTool(tool.name, input, signal, {
        resendAfterExit: resendableAfterExit(tool.annotations),
        onProgress: follow.progressOf(context),
      });
    } catch (error) {
      if (!canceled?.aborted || context.signal.aborted) throw error;
      throw new ToolError(CLIENT_CANCELED, 'the MCP client canceled the call while its tool ran');
    } finally {
      release();
    }
    if (result.isError) throw new ToolError('tool_error', resultText(result));
    return result.structuredContent === undefined
      ? { content: result.content }
      : { content: result.content, structuredContent: result.structuredContent };
  };
}

/**
 * Starts the executor bridge: connects to each MCP server over stdio, lists
 * its tools (prefixed `<server>__<tool>`), registers them in the profile when
 * an agent credential is given, then claims the granted rows of those tools
 * through the executor plane, calls `tools/call`, heartbeats while it runs,
 * and commits the result (`content`, `structuredContent`).
 * @throws ServersConfigError for a server name a servers file could not give;
 *   an Error when a server cannot be started or listed, lists a tool it cannot
 *   serve (see `tool-names.ts`), or the kernel refuses a
 *   credential; the SDK's DeadlineExceededError when the kernel does not
 *   answer within `timeoutMs` on the way up.
 */
export async function startExecutorBridge(options: ExecutorBridgeOptions): Promise<ExecutorBridge> {
  const connections = new Map<string, McpServerConnection>();
  const tools = new Map<string, BridgedTool>();
  const entriesByServer = new Map<string, ToolManifestEntry[]>();
  const handlers: Record<string, ToolHandler> = {};
  let executor: Executor | undefined;
  const committedListeners = new Set<(task: TaskView) => void>();
  const ranListeners = new Set<(task: TaskView) => void>();
  const leftRuns = new Set<string>();
  /** The clients' cancellations of the rows run for gateway sessions, by `run/key`. */
  const cancellations = new Map<string, AbortSignal>();
  const canceledOf = (context: ToolContext) =>
    cancellations.get(`${context.run_id}/${context.task_key}`);
  /** Where the servers' progress on the rows run for gateway sessions goes, by `run/key`. */
  const progressListeners = new Map<string, ProgressListener>();
  const progressOf = (context: ToolContext) =>
    progressListeners.get(`${context.run_id}/${context.task_key}`);
  /** Runs `work` with the row's cancellation known to its handler. */
  const withCancel = async <T>(
    row: string,
    canceled: AbortSignal | undefined,
    work: () => Promise<T>,
  ): Promise<T> => {
    if (!canceled) return work();
    cancellations.set(row, canceled);
    try {
      return await work();
    } finally {
      if (cancellations.get(row) === canceled) cancellations.delete(row);
    }
  };
  const closeAll = async () => {
    await executor?.close();
    await Promise.all([...connections.values()].map((c) => c.close()));
  };
  try {
    // Servers handed in directly are held to the names a servers file may give.
    checkServerNames(options.servers.map((server) => server.name));
    for (const server of options.servers) {
      if (connections.has(server.name)) throw new Error(`two servers are named ${server.name}`);
      const connection = new McpServerConnection(server);
      connections.set(server.name, connection);
      const listed = await connection.listTools().catch((error: Error) => {
        // With several servers, the SDK's "Connection closed" alone does not say whose.
        throw new Error(
          `the MCP server ${server.name} did not start and list its tools: ${error.message}`,
          {
            cause: error,
          },
        );
      });
      checkToolNames(server.name, listed);
      const entries = manifestEntries(server.name, listed);
      entriesByServer.set(server.name, entries);
      listed.forEach((tool, i) => {
        const name = prefixedName(server.name, tool.name);
        tools.set(name, { server: server.name, tool, entry: entries[i] as ToolManifestEntry });
        handlers[name] = handlerFor(connection, tool, { canceledOf, progressOf });
      });
    }
    const {
      registration,
      version: registeredVersion,
      manifestLeftOut,
    } = await registerTools(options, entriesByServer);
    // One executor for every tool: it claims for them in groups the kernel's claim takes.
    const served = createExecutor({
      url: options.url,
      token: options.executorToken,
      timeoutMs: options.timeoutMs,
      tools: handlers,
      leaseMs: options.leaseMs,
      bodyLimit: options.bodyLimit,
      onError: (error) => options.onError?.(error),
      onCommitted: (task) => {
        for (const listener of committedListeners) listener(task);
      },
      onRan: (task) => {
        for (const listener of ranListeners) listener(task);
      },
      leaves: (nudge) => leftRuns.has(nudge.run_id),
    });
    executor = served;
    await served.ready;
    return {
      tools,
      connections,
      registeredVersion,
      registration,
      manifestLeftOut,
      take: async (runId, taskKey, options = {}) => {
        if (options.toolName !== undefined && !tools.has(options.toolName)) return null;
        return withCancel(`${runId}/${taskKey}`, options.canceled, () =>
          served.take(runId, taskKey),
        );
      },
      runClaimed: (claim, { canceled, ...options } = {}) =>
        withCancel(`${claim.task.run_id}/${claim.task.key}`, canceled, () =>
          served.runClaimed(claim, options),
        ),
      leaseMs: served.leaseMs,
      ended: served.closed.then(
        () => new Promise<never>(() => {}),
        (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
      ),
      holds: (runId, taskKey) => served.holds(runId, taskKey),
      cancelWith(runId, taskKey, canceled) {
        const row = `${runId}/${taskKey}`;
        cancellations.set(row, canceled);
        return () => {
          if (cancellations.get(row) === canceled) cancellations.delete(row);
        };
      },
      progressTo(runId, taskKey, listener) {
        const row = `${runId}/${taskKey}`;
        progressListeners.set(row, listener);
        return () => {
          if (progressListeners.get(row) === listener) progressListeners.delete(row);
        };
      },
      onCommitted(listener) {
        committedListeners.add(listener);
        return () => committedListeners.delete(listener);
      },
      onRan(listener) {
        ranListeners.add(listener);
        return () => ranListeners.delete(listener);
      },
      leaveRun(runId) {
        // One gateway session owns a run: its undo gives the run's nudges back.
        leftRuns.add(runId);
        return () => leftRuns.delete(runId);
      },
      close: closeAll,
    };
  } catch (error) {
    await closeAll();
    throw error;
  }
}
