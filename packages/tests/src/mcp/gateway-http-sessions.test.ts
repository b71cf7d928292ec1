import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { useHttpGateway } from './http-gateway-fixture.js';

/*
 * The HTTP front holds a bounded number of sessions: per credential and in
 * all. An initialize past either cap is refused with a JSON-RPC error, and
 * a session that ends gives its place back.
 */
describe('MCP gateway over HTTP: session caps', () => {
  const g = useHttpGateway({ listen: { maxSessionsPerCredential: 2, maxSessions: 3 } });

  const connect = async (token: string) => {
    const transport = new StreamableHTTPClientTransport(new URL(g.front.url), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    });
    const client = new Client({ name: 'capped', version: '1.0.0' });
    await client.connect(transport);
    return { client, transport };
  };

  const initialize = (token: string) =>
    fetch(g.front.url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 'init-7',
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'raw', version: '1' },
        },
      }),
    });

  it('refuses an initialize past the per-credential cap (429) and past the total cap (503)', async () => {
    const { agent, member } = g.kernel.workspace.tokens;
    const first = await connect(agent);
    await connect(agent);
    const refused = await initialize(agent);
    expect(refused.status).toBe(429);
    const answer = (await refused.json()) as { id: unknown; error: { message: string } };
    expect(answer.id).toBe('init-7');
    expect(answer.error.message).toContain('already holds 2 open MCP sessions');
    await expect(connect(agent)).rejects.toThrow();
    expect(g.front.sessions).toBe(2);

    await connect(member);
    const full = await initialize(member);
    expect(full.status).toBe(503);
    expect(g.front.sessions).toBe(3);

    // A session that ends (DELETE) gives its place back.
    await first.transport.terminateSession();
    const again = await connect(agent);
    expect((await again.client.listTools()).tools.length).toBeGreaterThan(0);
    expect(g.front.sessions).toBe(3);
  });
});
