import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { createCredential } from '../store/accounts.js';
import { client, type Deployment, deploy } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const [sqlite] = await backends();

/** Opens a socket with a bearer token: 101 when it opened, else the refusal's status and headers. */
function upgrade(url: string, token: string): Promise<{ status: number; retryAfter?: string }> {
  return new Promise((resolve) => {
    const socket = new WebSocket(url, { headers: { authorization: `Bearer ${token}` } });
    socket.once('unexpected-response', (_req, res) => {
      resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] });
      socket.terminate();
    });
    socket.once('open', () => {
      resolve({ status: 101 });
      socket.close();
    });
    socket.once('error', () => undefined);
  });
}

describe('rate limits per credential', () => {
  let d: Deployment;
  beforeAll(async () => {
    // A slow refill (one request per minute) so the test never races the clock.
    d = await deploy(sqlite!, { rateLimit: { perSecond: 1 / 60, burst: 3 } });
  });
  afterAll(async () => {
    await d.close();
  });

  it('answers 429 with Retry-After past the burst, over REST and tRPC alike', async () => {
    for (let i = 0; i < 3; i++) expect((await d.member.get(`${d.ws}/runs`)).status).toBe(200);
    const response = await fetch(`${d.url}${d.ws}/runs`, {
      headers: { authorization: `Bearer ${d.tokens.member}` },
    });
    expect(response.status).toBe(429);
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe(
      'rate_limited',
    );
    const input = encodeURIComponent(JSON.stringify({ workspace_id: d.workspaceId }));
    const viaTrpc = await fetch(`${d.url}/trpc/runs.list?input=${input}`, {
      headers: { authorization: `Bearer ${d.tokens.member}` },
    });
    expect(viaTrpc.status).toBe(429);
    expect(viaTrpc.headers.get('retry-after')).not.toBeNull();
    const body = (await viaTrpc.json()) as { error: { data: { error: { code: string } } } };
    expect(body.error.data.error.code).toBe('rate_limited');
  });

  it('counts each credential apart and leaves the executor plane alone', async () => {
    const { token } = await createCredential(d.airlock.store, {
      workspaceId: d.workspaceId,
      kind: 'member',
    });
    expect((await client(d.url, token).get(`${d.ws}/runs`)).status).toBe(200);
    for (let i = 0; i < 5; i++) {
      expect((await d.executor.get('/executor_api/v1/inbox')).status).toBe(200);
    }
  });

  it('refuses a limited request without acting on it', async () => {
    for (let i = 0; i < 4; i++) await d.agent.get(`${d.ws}/runs`);
    const created = await d.agent.post(`${d.ws}/runs`, {
      approval_mode: 'ask',
      provider: { kind: 'scripted', rounds: [{ final: 'f' }] },
    });
    expect(created.status).toBe(429);
    const { token } = await createCredential(d.airlock.store, {
      workspaceId: d.workspaceId,
      kind: 'member',
    });
    const runs = (await client(d.url, token).get(`${d.ws}/runs`)).body.runs;
    expect(runs).toHaveLength(0);
  });

  it('counts a feed socket as a request, as REST and tRPC do, and leaves the cable alone', async () => {
    const { token } = await createCredential(d.airlock.store, {
      workspaceId: d.workspaceId,
      kind: 'member',
    });
    const feed = `${d.url.replace('http', 'ws')}${d.ws}/feed?after=latest`;
    for (let i = 0; i < 3; i++) expect((await upgrade(feed, token)).status).toBe(101);
    const refused = await upgrade(feed, token);
    expect(refused.status).toBe(429);
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
    // The burst is spent: REST refuses this credential too, one bucket for every surface.
    expect((await client(d.url, token).get(`${d.ws}/runs`)).status).toBe(429);
    const cable = `${d.url.replace('http', 'ws')}/executor_api/v1/cable?after=latest`;
    for (let i = 0; i < 5; i++) expect((await upgrade(cable, d.tokens.executor)).status).toBe(101);
  });
});
