import { describe, expect, it } from 'vitest';
import { useSdkGateway } from './sdk-gateway-fixture.js';

/*
 * The HTTP front takes a member's or an agent's credential only, and a
 * session id answers only to the credential that opened it.
 */
describe('MCP gateway over HTTP: credentials', () => {
  const { g } = useSdkGateway();

  it('refuses a request without a member or agent credential', async () => {
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'x', version: '1' },
      },
    };
    const post = (token: string | null) =>
      fetch(g.front.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
        body: JSON.stringify(initialize),
      });
    expect((await post(null)).status).toBe(401);
    expect((await post(g.kernel.workspace.tokens.executor)).status).toBe(403);
    expect((await post('alk_agent_not-a-real-token')).status).toBe(401);
    const opened = await post(g.kernel.workspace.tokens.agent);
    expect(opened.status).toBe(200);
    const sessionId = opened.headers.get('mcp-session-id') ?? '';
    /** A tools/list in session `id` with the member's credential. */
    const listIn = (id: string) =>
      fetch(g.front.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${g.kernel.workspace.tokens.member}`,
          'mcp-session-id': id,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
      });
    const other = await listIn(sessionId);
    // Answered as a session that does not exist: nothing says the session is someone else's.
    const unknown = await listIn('00000000-0000-4000-8000-000000000000');
    expect(other.status).toBe(404);
    expect(unknown.status).toBe(404);
    expect(await other.text()).toBe(await unknown.text());
    const garbled = await fetch(g.front.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${g.kernel.workspace.tokens.agent}`,
      },
      body: '{not json',
    });
    expect(garbled.status).toBe(400);
    expect(await garbled.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32700 } });
  });
});
