import { KernelApi } from '@airlock/mcp';
import { createClient } from '@airlock/sdk';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { useHttpGateway } from './http-gateway-fixture.js';

/*
 * A session belongs to a credential that may be revoked while the session
 * is open: from then on every request on it is refused, as an initialize
 * with that credential is, and nothing more is read or run for it.
 */
describe('MCP gateway over HTTP: a credential revoked during its session', () => {
  const g = useHttpGateway({
    beforeGateway: (kernel) =>
      new KernelApi({ url: kernel.url, token: kernel.workspace.tokens.agent })
        .putProfile({ approval_mode: 'bypass' })
        .then(() => {}),
  });

  const admin = () =>
    createClient({ url: g.kernel.url, token: g.kernel.workspace.tokens.member }).call;

  /** A raw POST on the session, as a client that ignores errors would send it. */
  const post = (token: string, sessionId: string, message: object) =>
    fetch(g.front.url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': sessionId,
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({ jsonrpc: '2.0', ...message }),
    });

  it.each(['agent', 'member'] as const)(
    'refuses the requests of a session whose %s credential was revoked since it opened',
    async (kind) => {
      const workspace_id = g.kernel.workspace.id;
      const made = await admin()('credentials.create', { workspace_id, kind });
      const transport = new StreamableHTTPClientTransport(new URL(g.front.url), {
        requestInit: { headers: { authorization: `Bearer ${made.token}` } },
      });
      const client = new Client({ name: 'revoked', version: '1.0.0' });
      await client.connect(transport);
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
      const sessionId = transport.sessionId ?? '';

      await admin()('credentials.revoke', { workspace_id, credential_id: made.credential_id });

      // What the gateway answers alone is refused as an initialize with that credential is.
      for (const message of [
        { id: 2, method: 'tools/list' },
        { id: 3, method: 'ping' },
      ]) {
        const answer = await post(made.token, sessionId, message);
        expect(answer.status, message.method).toBe(401);
        expect(await answer.json()).toEqual({
          jsonrpc: '2.0',
          id: message.id,
          error: { code: -32000, message: 'the token is unknown or revoked' },
        });
      }
      // A call is the kernel's to refuse, and it plants nothing.
      await expect(
        client.callTool({ name: 'fs__list_directory', arguments: { path: '.' } }),
      ).rejects.toThrow('unauthenticated: the token is unknown or revoked');
      const stream = await fetch(g.front.url, {
        headers: {
          authorization: `Bearer ${made.token}`,
          accept: 'text/event-stream',
          'mcp-session-id': sessionId,
        },
      });
      expect(stream.status).toBe(401);
      await stream.body?.cancel();
    },
  );
});
