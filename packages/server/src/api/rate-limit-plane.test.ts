import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { createCredential } from '../store/accounts.js';
import { client, type Deployment, deploy } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const [sqlite] = await backends();

/** Opens a socket with a bearer token: 101 when it opened, else the refusal's status. */
function upgrade(url: string, token: string): Promise<number> {
  return new Promise((resolve) => {
    const socket = new WebSocket(url, { headers: { authorization: `Bearer ${token}` } });
    socket.once('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      socket.terminate();
    });
    socket.once('open', () => {
      resolve(101);
      socket.close();
    });
    socket.once('error', () => undefined);
  });
}

// The budget is per credential: a request refused before it did anything (the wrong plane,
// another workspace, a role it lacks) must not spend what the credential's own calls need.
describe('the rate limit counts requests the credential may make', () => {
  let d: Deployment;
  beforeAll(async () => {
    // One request a minute refills: nothing within the test refills a bucket.
    d = await deploy(sqlite!, { rateLimit: { perSecond: 1 / 60, burst: 3 } });
  });
  afterAll(async () => {
    await d.close();
  });

  it('charges nothing for a REST request refused for its plane', async () => {
    for (let i = 0; i < 5; i++) {
      const refused = await d.agent.get(`${d.ws}/credentials`);
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe('forbidden');
    }
    for (let i = 0; i < 3; i++) expect((await d.agent.get(`${d.ws}/runs`)).status).toBe(200);
    // The burst is now spent by calls it may make.
    expect((await d.agent.get(`${d.ws}/runs`)).status).toBe(429);
  });

  it('charges nothing for a REST request refused for its workspace or role', async () => {
    const { token } = await createCredential(d.airlock.store, {
      workspaceId: d.workspaceId,
      kind: 'member',
      role: 'approver',
    });
    const approver = client(d.url, token);
    for (let i = 0; i < 5; i++) {
      expect((await approver.get('/api/v1/workspaces/ws_other/runs')).status).toBe(403);
      const admin = await approver.post(`${d.ws}/credentials`, { kind: 'member' });
      expect(admin.body.error.code).toBe('admin_required');
    }
    for (let i = 0; i < 3; i++) expect((await approver.get(`${d.ws}/runs`)).status).toBe(200);
    expect((await approver.get(`${d.ws}/runs`)).status).toBe(429);
  });

  it('still limits the calls a credential may make, and an unknown token stays refused', async () => {
    const { token } = await createCredential(d.airlock.store, {
      workspaceId: d.workspaceId,
      kind: 'member',
    });
    const member = client(d.url, token);
    for (let i = 0; i < 3; i++) expect((await member.get(`${d.ws}/credentials`)).status).toBe(200);
    expect((await member.get(`${d.ws}/credentials`)).status).toBe(429);
    expect((await client(d.url, 'not-a-token').get(`${d.ws}/runs`)).status).toBe(401);
  });

  it('charges nothing for a tRPC call refused for its workspace', async () => {
    const { token } = await createCredential(d.airlock.store, {
      workspaceId: d.workspaceId,
      kind: 'agent',
      agentApplicationId: d.appId,
    });
    const trpc = (workspaceId: string) =>
      fetch(
        `${d.url}/trpc/runs.list?input=${encodeURIComponent(JSON.stringify({ workspace_id: workspaceId }))}`,
        { headers: { authorization: `Bearer ${token}` } },
      );
    for (let i = 0; i < 5; i++) expect((await trpc('ws_other')).status).toBe(403);
    for (let i = 0; i < 2; i++) expect((await trpc(d.workspaceId)).status).toBe(200);
    const agent = client(d.url, token);
    expect((await agent.get(`${d.ws}/runs`)).status).toBe(200);
    expect((await agent.get(`${d.ws}/runs`)).status).toBe(429);
    expect((await trpc(d.workspaceId)).status).toBe(429);
  });

  it('charges nothing for a socket refused for its plane or workspace', async () => {
    const { token } = await createCredential(d.airlock.store, {
      workspaceId: d.workspaceId,
      kind: 'member',
    });
    const socketUrl = d.url.replace(/^http/, 'ws');
    for (let i = 0; i < 3; i++) {
      expect(await upgrade(`${socketUrl}/executor_api/v1/cable`, token)).toBe(403);
      expect(await upgrade(`${socketUrl}/api/v1/workspaces/ws_other/feed`, token)).toBe(403);
    }
    const member = client(d.url, token);
    for (let i = 0; i < 2; i++) expect((await member.get(`${d.ws}/runs`)).status).toBe(200);
    // An opening the credential may make still counts as a request.
    expect(await upgrade(`${socketUrl}${d.ws}/feed`, token)).toBe(101);
    expect((await member.get(`${d.ws}/runs`)).status).toBe(429);
    expect(await upgrade(`${socketUrl}${d.ws}/feed`, token)).toBe(429);
  });

  it('still charges a socket opening refused for its own input', async () => {
    const { token } = await createCredential(d.airlock.store, {
      workspaceId: d.workspaceId,
      kind: 'member',
    });
    const socketUrl = d.url.replace(/^http/, 'ws');
    // A run id past its 200 characters: admitted, then refused as a REST request with bad input is.
    const feed = `${socketUrl}${d.ws}/feed?run_id=${'r'.repeat(201)}`;
    for (let i = 0; i < 3; i++) expect(await upgrade(feed, token)).toBe(400);
    expect((await client(d.url, token).get(`${d.ws}/runs`)).status).toBe(429);
  });
});
