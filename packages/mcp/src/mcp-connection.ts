import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  type CallToolResult,
  CallToolResultSchema,
  ErrorCode,
  ListToolsResultSchema,
  McpError,
  type Progress,
  type Tool,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { issuesText, schemaIssuesOf } from './schema-issues.js';
import { useServerLineBuffer } from './server-lines.js';
import type { NamedServer } from './servers-config.js';
import { ToolPins } from './tool-pins.js';

/** What this package tells MCP servers it is. */
export const CLIENT_INFO = { name: 'airlock-mcp-bridge', version: '0.0.0' };

/** Longest a server may take to answer `initialize`, by default (the SDK's request timeout). */
const START_TIMEOUT_MS = 60_000;
/** Longest a failed start waits for the SDK to stop the server's process (stdin, SIGTERM, SIGKILL). */
const STOP_WAIT_MS = 5000;

/** Most pages of one server's tools/list: past it the server is taken to hand out cursors forever. */
const TOOL_LIST_MAX_PAGES = 1000;
/** Most JSON text of one server's tools, over all its pages (the kernel takes far less in a profile). */
const TOOL_LIST_MAX_BYTES = 16 * 1024 * 1024;

/** Longest a tools/call may run before it is failed (the lease is heartbeated meanwhile). */
const CALL_TIMEOUT_MS = 10 * 60_000;

function connectionLost(error: unknown): boolean {
  return error instanceof McpError && error.code === ErrorCode.ConnectionClosed;
}

/** What the SDK's stdio transport says when a message is over its limit (it then closes itself). */
const OVERSIZED = /ReadBuffer exceeded maximum size/;
/** The SDK's limit on one stdio message. */
const STDIO_MESSAGE_MAX_BYTES = 10 * 1024 * 1024;

/** Connections the bridge closed itself over a message too large: not the server's exit. */
const overflowed = new WeakSet<Client>();

/**
 * A stdio connection to one MCP server that comes back by itself: when the
 * server's process exits, the next use starts it again, and a call the exit
 * interrupted is sent once more to the new process.
 */
export class McpServerConnection {
  private client: Client | null = null;
  private connecting: Promise<Client> | null = null;
  private closed = false;
  /** The tools as first listed: a call of one declared otherwise since is not sent. */
  private readonly pins = new ToolPins();
  /** Set when the tools must be listed again before a call (a restart, the server's list_changed). */
  private relist = false;
  private relisting: Promise<void> | null = null;
  /** How many times the server's process was started. */
  starts = 0;

  constructor(
    readonly server: NamedServer,
    private readonly options: {
      startTimeoutMs?: number | undefined;
      /** Longest a tools/call may run before it is cancelled and failed; default 10 min. */
      callTimeoutMs?: number | undefined;
    } = {},
  ) {}

  /** The server's process id, while it runs. */
  get pid(): number | null {
    const transport = this.client?.transport as StdioClientTransport | undefined;
    return transport?.pid ?? null;
  }

  private async open(): Promise<Client> {
    if (this.closed) throw new Error(`the connection to ${this.server.name} is closed`);
    if (this.client) return this.client;
    this.connecting ??= (async () => {
      const { spec } = this.server;
      const transport = new StdioClientTransport({
        command: spec.command,
        args: spec.args,
        // The SDK adds only the few variables every process needs (PATH, HOME, …) to this env:
        // the server, someone else's code, never sees the bridge's own (its Airlock credentials).
        ...(spec.env ? { env: spec.env } : {}),
        ...(spec.cwd ? { cwd: spec.cwd } : {}),
        stderr: 'inherit',
      });
      // Each line parsed once, its message checked once, as the client dispatches it.
      useServerLineBuffer(transport);
      const client = new Client(CLIENT_INFO);
      client.onclose = () => {
        if (this.client === client) this.client = null;
      };
      client.onerror = (error) => {
        if (OVERSIZED.test(error.message)) overflowed.add(client);
      };
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        if (this.client === client) this.relist = true;
      });
      // Resolves once the server's process is gone (the transport's close follows its exit).
      const exited = new Promise<void>((resolve) => {
        transport.onclose = resolve;
      });
      try {
        await client.connect(transport, {
          timeout: this.options.startTimeoutMs ?? START_TIMEOUT_MS,
        });
      } catch (error) {
        // The SDK stops a server that failed to start without waiting: wait, so none is orphaned.
        await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, STOP_WAIT_MS))]);
        throw error;
      } finally {
        this.connecting = null;
      }
      // A new process may declare its tools otherwise than the one the bridge listed.
      if (this.starts > 0) this.relist = true;
      this.starts += 1;
      this.client = client;
      return client;
    })();
    return this.connecting;
  }

  /**
   * Starts the server if it is not running and lists every tool it declares.
   * The first listing pins the tools: a later one is only compared with it
   * (see {@link McpServerConnection.callTool}).
   * @throws McpError when the server cannot be reached or refuses the request,
   *   when its answer is no tool list (the schema's problems in one line),
   *   or when its listing runs past {@link TOOL_LIST_MAX_PAGES} pages or
   *   {@link TOOL_LIST_MAX_BYTES} bytes (a next cursor handed out forever).
   */
  async listTools(): Promise<Tool[]> {
    const tools = await this.listAll(await this.open());
    this.pins.take(tools);
    return tools;
  }

  /** Every page of the server's tools/list (see {@link McpServerConnection.listTools}). */
  private async listAll(client: Client): Promise<Tool[]> {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    let pages = 0;
    let bytes = 0;
    do {
      // Not client.listTools: it compiles every tool's outputSchema (one that does not compile
      // throws, a costly one holds the process) for the checks callTool would make (see callTool).
      const page = await client
        .request(
          { method: 'tools/list', params: cursor === undefined ? {} : { cursor } },
          ListToolsResultSchema,
        )
        .catch((error: unknown) => {
          const issues = schemaIssuesOf(error);
          if (!issues) throw error;
          const problem = issuesText(issues, 'not a ListToolsResult');
          throw new McpError(
            ErrorCode.InternalError,
            `its tools/list answer is no MCP tool list (${problem})`,
          );
        });
      pages += 1;
      bytes += JSON.stringify(page.tools).length;
      if (pages > TOOL_LIST_MAX_PAGES || bytes > TOOL_LIST_MAX_BYTES) {
        throw new McpError(
          ErrorCode.InternalError,
          `${this.server.name} lists tools without end: more than ${TOOL_LIST_MAX_PAGES} pages or ${TOOL_LIST_MAX_BYTES / 1024 / 1024} MiB of tools`,
        );
      }
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return tools;
  }

  /**
   * Calls a tool (by its own name, unprefixed). A call cut off by the
   * server's exit is sent once more to a fresh process only with
   * `options.resendAfterExit` (a tool that says it is read-only or
   * idempotent, see `resendableAfterExit`): any other may have run before the
   * exit, and fails saying so. One whose answer was too large for a stdio
   * message ran, and is never sent again. With `options.onProgress` the call
   * asks the server for progress (a `progressToken`) and tells each
   * `notifications/progress` the server sends for it. A tool the server
   * declares otherwise than in the first listing (after a restart of its
   * process, or its `notifications/tools/list_changed`, the tools are listed
   * again) or no more is not called.
   * @throws McpError when the tool is declared otherwise since (nothing is
   *   sent), when the server cannot be reached or refuses the request,
   *   answers no MCP tool result, or does not answer in time (the call is then
   *   cancelled on it); each of the last two says the tool may have run.
   */
  async callTool(
    name: string,
    input: unknown,
    signal: AbortSignal,
    options: {
      resendAfterExit?: boolean | undefined;
      onProgress?: ((progress: Progress) => void) | undefined;
    } = {},
  ): Promise<CallToolResult> {
    const callTimeoutMs = this.options.callTimeoutMs ?? CALL_TIMEOUT_MS;
    const send = async (again: boolean) => {
      const client = await this.open();
      await this.relistIfAsked(client);
      const change = this.pins.changeOf(name);
      if (change !== null) {
        const earlier = again ? ' again (the attempt its exit cut off may have run)' : '';
        throw new McpError(
          ErrorCode.InvalidRequest,
          `the server ${this.server.name} now declares ${name} otherwise than when the bridge listed it (${change}): the call was not sent${earlier}; the bridge serves a tool as it was listed and approved, so restart it to serve the new declaration`,
        );
      }
      try {
        // Not client.callTool: once the tool has run, it throws away a result whose
        // structuredContent does not match the tool's outputSchema (as -32602, an input
        // mistake). The row records what the tool answered; a gateway's client checks it.
        return await client.request(
          {
            method: 'tools/call',
            params: { name, arguments: (input ?? {}) as Record<string, unknown> },
          },
          CallToolResultSchema,
          { signal, timeout: callTimeoutMs, onprogress: options.onProgress },
        );
      } catch (error) {
        if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
          // The SDK's "Request timed out" read as if nothing happened: the server may have acted.
          throw new McpError(
            ErrorCode.RequestTimeout,
            `the server ${this.server.name} did not answer ${name} within ${callTimeoutMs} ms, and the call was cancelled on it: the tool may have run, and its outcome is unknown`,
          );
        }
        const issues = schemaIssuesOf(error);
        if (issues) {
          // Not the SDK's validation dump: the server answered, so whatever the tool does, it did.
          throw new McpError(
            ErrorCode.InternalError,
            `the server ${this.server.name} answered ${name} with no MCP tool result (${issuesText(issues, 'not a CallToolResult')}): the tool may have run, and its outcome is unknown`,
          );
        }
        if (!overflowed.has(client)) throw error;
        throw new McpError(
          ErrorCode.InternalError,
          `the result of ${name} is over ${STDIO_MESSAGE_MAX_BYTES} bytes, more than one stdio message may carry: the tool ran, and is not sent again`,
        );
      }
    };
    try {
      return await send(false);
    } catch (error) {
      if (!connectionLost(error) || signal.aborted) throw error;
      if (!options.resendAfterExit) {
        throw new McpError(
          ErrorCode.ConnectionClosed,
          `the server ${this.server.name} exited during ${name}, which may have run before it did: a tool that is neither read-only nor idempotent is not sent again`,
        );
      }
      return send(true);
    }
  }

  /** Lists the tools again when asked (a restart, list_changed) and compares them with the pins. */
  private async relistIfAsked(client: Client): Promise<void> {
    if (this.relist) {
      this.relist = false;
      // One listing for the calls that start meanwhile; a failed one is tried again by the next.
      this.relisting = this.listAll(client).then(
        (tools) => this.pins.take(tools),
        (error: unknown) => {
          this.relist = true;
          throw error;
        },
      );
    }
    await this.relisting;
  }

  /** Stops the server's process. */
  async close(): Promise<void> {
    this.closed = true;
    const client = this.client ?? (await this.connecting?.catch(() => null));
    this.client = null;
    await client?.close();
  }
}
