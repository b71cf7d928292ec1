import { describe, expect, it } from 'vitest';
import { useHttpGateway } from './http-gateway-fixture.js';

const ALLOWED = 'http://localhost:6274';

/*
 * `--allow-origin` promises that a browser page of that origin is served.
 * A browser sends its bearer token only after a preflight, and lets the page
 * read an answer (and the session id header) only with CORS headers: the
 * gateway answered the preflight 401 and sent no CORS header, so no page of
 * an allowed origin could ever use it. Foreign origins stay refused.
 */
describe('MCP gateway over HTTP: a browser page of an allowed origin', () => {
  const g = useHttpGateway({ listen: { allowOrigins: [ALLOWED] } });

  const preflight = (origin: string) =>
    fetch(g.front.url, {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type, mcp-protocol-version',
      },
    });

  it('gets its preflight answered without a credential', async () => {
    const answer = await preflight(ALLOWED);
    expect(answer.status).toBe(204);
    expect(answer.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(answer.headers.get('access-control-allow-methods')).toContain('POST');
    const allowed = answer.headers.get('access-control-allow-headers') ?? '';
    for (const header of [
      'authorization',
      'content-type',
      'mcp-session-id',
      'mcp-protocol-version',
    ]) {
      expect(allowed).toContain(header);
    }
  });

  it('reads the answers and the session id of its requests, refusals included', async () => {
    const post = (token: string) =>
      fetch(g.front.url, {
        method: 'POST',
        headers: {
          origin: ALLOWED,
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-06-18',
            capabilities: {},
            clientInfo: { name: 'browser', version: '1' },
          },
        }),
      });
    const opened = await post(g.kernel.workspace.tokens.agent);
    await opened.text();
    expect(opened.status).toBe(200);
    expect(opened.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(opened.headers.get('access-control-expose-headers')).toContain('mcp-session-id');
    expect(opened.headers.get('mcp-session-id')).toBeTruthy();
    const refused = await post('alk_agent_unknown');
    await refused.text();
    expect(refused.status).toBe(401);
    expect(refused.headers.get('access-control-allow-origin')).toBe(ALLOWED);
  });

  it('a foreign origin is still refused, preflight included, with no CORS header', async () => {
    const answer = await preflight('http://evil.example');
    await answer.text();
    expect(answer.status).toBe(403);
    expect(answer.headers.get('access-control-allow-origin')).toBeNull();
  });
});
