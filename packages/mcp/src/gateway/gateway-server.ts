import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { BridgedTool } from '../executor-bridge.js';
import type { GatewaySession } from './gateway-session.js';

/** What this package tells MCP clients it is. */
export const GATEWAY_INFO = { name: 'airlock-gateway', version: '0.0.0' };

/** How often a parked call tells its client it still waits; default 1 s. */
const PROGRESS_EVERY_MS = 1000;

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
 * An MCP server for one client session: `tools/list` lists the bridged
 * tools; `tools/call` goes through the session's gateway run. While a call is
 * parked, a client that asked for progress gets a `notifications/progress`
 * every second naming the row a person must decide.
 */
export function createGatewayServer(options: {
  tools: ReadonlyMap<string, BridgedTool>;
  session: (clientName: string) => GatewaySession;
  progressEveryMs?: number | undefined;
}): Server {
  const server = new Server(GATEWAY_INFO, {
    capabilities: { tools: {} },
    instructions:
      'Every tool call passes the Airlock approval stage: it may run at once, be refused, or wait until a person approves it.',
  });
  let closed = false;
  let session: GatewaySession | null = null;
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
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name } = request.params;
    if (!options.tools.has(name)) {
      throw new McpError(ErrorCode.InvalidParams, `no tool ${name} behind this gateway`);
    }
    const progressToken = request.params._meta?.progressToken;
    let progress = 0;
    let lastSent = Number.NEGATIVE_INFINITY;
    const every = options.progressEveryMs ?? PROGRESS_EVERY_MS;
    return sessionOf().call({
      name,
      input: request.params.arguments ?? {},
      callId: String(extra.requestId),
      signal: extra.signal,
      cancelRequested: () => !closed,
      onWaiting:
        progressToken === undefined
          ? undefined
          : async (task, elapsedMs) => {
              if (elapsedMs - lastSent < every) return;
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
            },
    });
  });
  server.onclose = () => {
    closed = true;
    void session?.close().catch(() => {});
  };
  return server;
}
