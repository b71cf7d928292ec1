import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCredential } from '../store/accounts.js';
import { client, type Deployment, deploy } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const [sqlite] = await backends();

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
});
