import { KernelApi } from '@airlock/mcp';
import { createClient } from '@airlock/sdk';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  type CallToolResult,
  ElicitRequestSchema,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll } from 'vitest';
import { eventually } from '../support/kernel.js';
import { type HttpGatewayFixture, useHttpGateway } from './http-gateway-fixture.js';

/** The workspace as its member sees it, through the SDK. */
type Workspace = ReturnType<ReturnType<typeof createClient>['workspace']>;

async function findParked(workspace: () => Workspace, tool: string) {
  const found = (await workspace().decisions.list()).find(
    (d) => d.isApproval() && d.tool_name === tool,
  );
  return found?.isApproval() ? found : null;
}

/** The decision a parked call waits on. */
type ParkedCall = NonNullable<Awaited<ReturnType<typeof findParked>>>;

/** What {@link useSdkGateway} gives a test file: the running parts and an SDK client's helpers. */
export interface SdkGatewayFixture {
  readonly g: HttpGatewayFixture;
  /** An SDK client of the gateway (`at.url`, default the file's), named `at.name`; closed after the file. */
  connect(
    token: string,
    elicit?: () => ElicitResult,
    at?: { name?: string; url?: string },
  ): Promise<Client>;
  /** The workspace as its member sees it. */
  workspace(): Workspace;
  /** The decision a parked call of `tool` waits on, once it parks. */
  parked(tool: string): Promise<ParkedCall>;
  /** A tool result's text blocks, joined by line breaks. */
  text(result: CallToolResult): string;
}

/**
 * The gateway with an MCP client from the official SDK over Streamable HTTP
 * on loopback, in front of the real filesystem server: the agent's profile
 * allows reads and asks for writes; a member's session runs under a policy
 * that asks for writes and allows nothing else. Started before a file's tests.
 */
export function useSdkGateway(): SdkGatewayFixture {
  const g = useHttpGateway({
    beforeGateway: async (kernel) => {
      await new KernelApi({ url: kernel.url, token: kernel.workspace.tokens.agent }).putProfile({
        approval_mode: 'rules',
        approval_rules: [
          { tool: 'fs__read_*|fs__list_*', verdict: 'allow' },
          { tool: 'fs__write_file', verdict: 'ask' },
        ],
      });
    },
    gateway: {
      memberPolicy: {
        approval_mode: 'rules',
        approval_rules: [{ tool: 'fs__write_file', verdict: 'ask' }],
      },
      pollMs: 50,
      progressEveryMs: 100,
    },
  });
  const clients: Client[] = [];
  // Registered after the gateway's: run before it closes the gateway and the kernel.
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
  });

  const workspace = () =>
    createClient({ url: g.kernel.url, token: g.kernel.workspace.tokens.member }).workspace(
      g.kernel.workspace.id,
    );
  return {
    g,
    async connect(token, elicit, at = {}) {
      const client = new Client(
        { name: at.name ?? 'test-client', version: '1.0.0' },
        elicit ? { capabilities: { elicitation: { form: {} } } } : {},
      );
      if (elicit) client.setRequestHandler(ElicitRequestSchema, async () => elicit());
      await client.connect(
        new StreamableHTTPClientTransport(new URL(at.url ?? g.front.url), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      );
      clients.push(client);
      return client;
    },
    workspace,
    parked: async (tool) => eventually(async () => findParked(workspace, tool)),
    text: (result) =>
      result.content.map((block) => (block.type === 'text' ? block.text : '')).join('\n'),
  };
}
