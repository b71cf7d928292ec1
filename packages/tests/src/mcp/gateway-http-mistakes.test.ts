import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ListToolsResultSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { useHttpGateway } from './http-gateway-fixture.js';

/*
 * Over HTTP as over stdio, a request whose params do not fit the MCP schema
 * answers -32602 with one short line, never -32603 with a validation dump;
 * a body that is no JSON answers -32700, and JSON that is no JSON-RPC
 * message -32600 with its id and why (the MCP SDK's transport said -32700).
 */
describe('MCP gateway over HTTP: malformed requests', () => {
  const g = useHttpGateway();

  it('answers a tools/list cursor that is not a string with -32602 and one line', async () => {
    const client = new Client({ name: 'http-mistakes', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(g.front.url), {
        requestInit: { headers: { authorization: `Bearer ${g.kernel.workspace.tokens.agent}` } },
      }),
    );
    try {
      const refused = await client
        .request({ method: 'tools/list', params: { cursor: 5 as never } }, ListToolsResultSchema)
        .then(
          () => null,
          (error: unknown) => error,
        );
      expect(refused).toBeInstanceOf(McpError);
      expect(refused).toMatchObject({ code: -32602 });
      expect((refused as McpError).message).toBe(
        'MCP error -32602: tools/list: params.cursor: expected string, received number',
      );
      // The session goes on.
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  });

  /** A POST of `body` with the agent credential sent as `scheme <token>`, in a session when given. */
  const post = (body: string, scheme = 'Bearer', sessionId?: string) =>
    fetch(g.front.url, {
      method: 'POST',
      headers: {
        authorization: `${scheme} ${g.kernel.workspace.tokens.agent}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(sessionId ? { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' } : {}),
      },
      body,
    });

  const initialize = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'x', version: '1' },
    },
  });

  it('answers JSON that is no JSON-RPC message with -32600, its id and why, in a session or not', async () => {
    const opened = await post(initialize);
    const sessionId = opened.headers.get('mcp-session-id') ?? '';
    await opened.text();
    const cases: [string, string | number | null, string][] = [
      ['{"id":2,"method":"tools/list"}', 2, '"jsonrpc" must be "2.0"'],
      [
        '{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}',
        null,
        '"id" must be a string or an integer',
      ],
      [
        '{"jsonrpc":"2.0","id":"b","method":"tools/list","params":[]}',
        'b',
        '"params" must be an object',
      ],
      [
        '{"jsonrpc":"2.0","id":"c","method":"ping","extra":1}',
        'c',
        '"extra" is no member of a JSON-RPC message',
      ],
      ['5', null, 'a message is one JSON object'],
      ['[]', null, 'an empty batch holds no message'],
      [
        '[{"jsonrpc":"2.0","id":3,"method":"ping"},{"id":4}]',
        null,
        'batch item 1: "jsonrpc" must be "2.0"',
      ],
    ];
    for (const session of [sessionId, undefined]) {
      for (const [body, id, reason] of cases) {
        const answer = await post(body, 'Bearer', session);
        expect(answer.status, body).toBe(400);
        expect(await answer.json(), body).toEqual({
          jsonrpc: '2.0',
          error: { code: -32600, message: `Invalid Request: ${reason}` },
          id,
        });
      }
    }
    // The session goes on.
    const ping = await post('{"jsonrpc":"2.0","id":9,"method":"ping"}', 'Bearer', sessionId);
    expect(ping.status).toBe(200);
    expect(await ping.text()).toContain('"id":9');
  });

  it('answers a body that is not JSON with -32700 Parse error', async () => {
    const garbled = await post('{not json');
    expect(garbled.status).toBe(400);
    expect(await garbled.json()).toEqual({
      jsonrpc: '2.0',
      error: { code: -32700, message: 'Parse error: the body is not JSON' },
      id: null,
    });
  });

  it('reads the bearer scheme in any case', async () => {
    for (const scheme of ['bearer', 'BEARER']) {
      const opened = await post(initialize, scheme);
      expect(opened.status).toBe(200);
      const sessionId = opened.headers.get('mcp-session-id') ?? '';
      expect(sessionId).not.toBe('');
      await fetch(g.front.url, {
        method: 'DELETE',
        headers: {
          authorization: `${scheme} ${g.kernel.workspace.tokens.agent}`,
          'mcp-session-id': sessionId,
        },
      });
    }
  });
});
