import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCredential } from '../store/accounts.js';
import { client, type Deployment, deploy } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const [sqlite] = await backends();

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
});
