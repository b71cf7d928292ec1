import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCredential, createWorkspace } from '../store/accounts.js';
import { client, type Deployment, deploy } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const [sqlite] = await backends();

const parkOne = {
  approval_mode: 'ask',
  input: 'x',
  provider: { kind: 'scripted', rounds: [{ tool_calls: [{ name: 'deploy' }] }, { final: 'f' }] },
};

describe('planes, credentials and bad input', () => {
  let d: Deployment;
  let runId: string;
  beforeAll(async () => {
    d = await deploy(sqlite!, { bodyLimit: 64 * 1024 });
    runId = (await d.agent.post(`${d.ws}/runs`, parkOne)).body.id;
  });
  afterAll(async () => {
    await d.close();
  });

  async function unchanged() {
    const task = await d.member.get(`${d.ws}/runs/${runId}/tasks/t1`);
    expect(task.body.state).toBe('needs_approval');
  }

  it('refuses a credential of the wrong plane with 403 and changes nothing', async () => {
    for (const caller of [d.agent, d.executor]) {
      const answer = await caller.post(`${d.ws}/runs/${runId}/tasks/t1/approve`);
      expect(answer.status).toBe(403);
      expect(answer.body.error.code).toBe('forbidden');
    }
    expect((await d.member.get('/executor_api/v1/inbox')).status).toBe(403);
    expect((await d.member.put('/agent_api/v1/profile/configuration', {})).status).toBe(403);
    await unchanged();
  });

  it("refuses another workspace's credential with 403 and leaks nothing", async () => {
    const other = await createWorkspace(d.airlock.store, 'other');
    const { token } = await createCredential(d.airlock.store, {
      workspaceId: other.id,
      kind: 'member',
    });
    const stranger = client(d.url, token);
    for (const path of [`${d.ws}/runs/${runId}/tasks/t1/approve`, `${d.ws}/runs/${runId}/stop`]) {
      const answer = await stranger.post(path);
      expect(answer.status).toBe(403);
      expect(JSON.stringify(answer.body)).not.toContain('deploy');
    }
    const own = await stranger.post(
      `/api/v1/workspaces/${other.id}/runs/${runId}/tasks/t1/approve`,
    );
    expect(own.status).toBe(404);
    await unchanged();
  });

  it('answers 401 without a token or with a revoked one', async () => {
    expect((await client(d.url, null).get(`${d.ws}/runs`)).status).toBe(401);
    const { credential, token } = await createCredential(d.airlock.store, {
      workspaceId: d.workspaceId,
      kind: 'member',
    });
    expect((await client(d.url, token).get(`${d.ws}/runs`)).status).toBe(200);
    const { revokeCredential } = await import('../store/accounts.js');
    await revokeCredential(d.airlock.store, credential.credential_id);
    const revoked = await client(d.url, token).get(`${d.ws}/runs`);
    expect(revoked.status).toBe(401);
    expect(revoked.body.error.code).toBe('unauthenticated');
  });

  it('answers malformed JSON, wrong types, oversized bodies and unknown ids with 4xx', async () => {
    const cases: [string, string, unknown, number, string][] = [
      ['POST', `${d.ws}/runs/${runId}/tasks/t1/deny`, '{"reason":', 400, 'invalid_json'],
      ['POST', `${d.ws}/runs/${runId}/tasks/t1/deny`, '[1,2]', 400, 'invalid_input'],
      ['POST', `${d.ws}/runs/${runId}/tasks/t1/deny`, { reason: 42 }, 400, 'invalid_input'],
      [
        'POST',
        `${d.ws}/runs/${runId}/tasks/t1/deny`,
        { reason: 'x'.repeat(70_000) },
        413,
        'payload_too_large',
      ],
      ['POST', `${d.ws}/runs/run_nope/tasks/t1/approve`, {}, 404, 'run_not_found'],
      ['POST', `${d.ws}/runs/${runId}/tasks/t99/approve`, {}, 404, 'task_not_found'],
      ['GET', `${d.ws}/runs/${runId}/events?after=-4`, undefined, 400, 'invalid_input'],
      ['GET', `${d.ws}/runs/${runId}/events?after=abc`, undefined, 400, 'invalid_input'],
      [
        'POST',
        `${d.ws}/runs`,
        { approval_mode: 'sometimes', provider: { kind: 'scripted', rounds: [] } },
        400,
        'invalid_input',
      ],
      ['DELETE', `${d.ws}/runs/${runId}`, undefined, 405, 'method_not_allowed'],
      ['GET', '/api/v1/nothing', undefined, 404, 'not_found'],
      ['POST', `${d.ws}/runs/%E0%A4%A/tasks/t1/approve`, {}, 400, 'invalid_input'],
    ];
    for (const [method, path, body, status, code] of cases) {
      const answer = await d.member.call(method, path, body);
      expect({ path, status: answer.status, code: answer.body?.error?.code }).toEqual({
        path,
        status,
        code,
      });
    }
    const badRules = await d.member.post(`${d.ws}/runs`, {
      ...parkOne,
      approval_rules: [{ tool: 'bash|', verdict: 'maybe', colour: 'red' }],
    });
    expect(badRules.status).toBe(422);
    expect(badRules.body.error.code).toBe('invalid_configuration');
    expect(badRules.body.error.problems.length).toBeGreaterThanOrEqual(3);
    await unchanged();
  });

  it('serves an OpenAPI 3.1 document built from the operations', async () => {
    const doc = await client(d.url, null).get('/openapi.json');
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toBe('3.1.0');
    const approve =
      doc.body.paths['/api/v1/workspaces/{workspace_id}/runs/{run_id}/tasks/{task_key}/approve'];
    expect(approve.post.operationId).toBe('decisions.approve');
    expect(approve.post.responses['409']).toBeDefined();
    const deny =
      doc.body.paths['/api/v1/workspaces/{workspace_id}/runs/{run_id}/tasks/{task_key}/deny'];
    expect(deny.post.requestBody.content['application/json'].schema.properties.reason.type).toBe(
      'string',
    );
    expect(doc.body.paths['/agent_api/v1/profile/configuration'].put).toBeDefined();
    expect(
      doc.body.paths['/executor_api/v1/runs/{run_id}/tasks/{task_key}/claim'].post,
    ).toBeDefined();
  });

  it('answers HEAD of the OpenAPI document as its GET, and another method 405 with Allow', async () => {
    const get = await fetch(`${d.url}/openapi.json`);
    const text = await get.text();
    const head = await fetch(`${d.url}/openapi.json`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
    expect(Number(head.headers.get('content-length'))).toBe(Buffer.byteLength(text));
    const post = await fetch(`${d.url}/openapi.json`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    expect(((await post.json()) as { error: { code: string } }).error.code).toBe(
      'method_not_allowed',
    );
  });

  it('serves the same operations over tRPC with the same errors', async () => {
    const call = async (token: string, path: string, input: unknown) => {
      const response = await fetch(`${d.url}/trpc/${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(input),
      });
      return { status: response.status, body: await response.json() };
    };
    const wrongPlane = await call(d.tokens.executor, 'decisions.approve', {
      workspace_id: d.workspaceId,
      run_id: runId,
      task_key: 't1',
    });
    expect(wrongPlane.status).toBe(403);
    expect(wrongPlane.body.error.data.error.code).toBe('forbidden');
    const fresh = (await d.agent.post(`${d.ws}/runs`, parkOne)).body.id;
    const approved = await call(d.tokens.member, 'decisions.approve', {
      workspace_id: d.workspaceId,
      run_id: fresh,
      task_key: 't1',
    });
    expect(approved.status).toBe(200);
    expect(approved.body.result.data.state).toBe('runnable');
    const again = await call(d.tokens.member, 'decisions.approve', {
      workspace_id: d.workspaceId,
      run_id: fresh,
      task_key: 't1',
    });
    expect(again.status).toBe(409);
    expect(again.body.error.data.error.code).toBe('task_not_waiting');
    const invalid = await call(d.tokens.member, 'decisions.deny', {
      workspace_id: d.workspaceId,
      run_id: fresh,
      task_key: 't1',
      reason: 42,
    });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.data.error).toMatchObject({
      code: 'invalid_input',
      problems: [expect.objectContaining({ pointer: '/reason' })],
    });
    const oversized = await call(d.tokens.member, 'decisions.deny', {
      workspace_id: d.workspaceId,
      run_id: fresh,
      task_key: 't1',
      reason: 'x'.repeat(2 * 1024 * 1024),
    });
    expect(oversized.status).toBe(413);
    expect(oversized.body.error.data.error.code).toBe('payload_too_large');
  });

  it('answers HEAD wherever it answers GET, without a body', async () => {
    const headers = { authorization: `Bearer ${d.tokens.member}` };
    const get = await fetch(`${d.url}${d.ws}/runs`, { headers });
    const head = await fetch(`${d.url}${d.ws}/runs`, { method: 'HEAD', headers });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
    expect((await fetch(`${d.url}/healthz`, { method: 'HEAD' })).status).toBe(200);
    const metrics = await fetch(`${d.url}/metrics`, { method: 'HEAD', headers });
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await metrics.text()).toBe('');
    // The kernel's own pages name what they serve, as the API's routes do.
    for (const path of ['/healthz', '/readyz', '/metrics']) {
      const posted = await fetch(`${d.url}${path}`, { method: 'POST', headers });
      expect(posted.status, path).toBe(405);
      expect(posted.headers.get('allow'), path).toBe('GET, HEAD');
      expect((await posted.json()).error.code, path).toBe('method_not_allowed');
    }
    const refused = await fetch(`${d.url}${d.ws}/runs`, { method: 'DELETE', headers });
    expect(refused.status).toBe(405);
    expect(refused.headers.get('allow')?.split(', ').sort()).toEqual(['GET', 'HEAD', 'POST']);
  });

  it('refuses a query parameter given twice rather than keep one of its values', async () => {
    const twice = await d.member.get(`${d.ws}/runs?limit=1000&limit=abc`);
    expect(twice.status).toBe(400);
    expect(twice.body.error.code).toBe('invalid_input');
    expect(twice.body.error.detail).toContain('limit: given more than once');
  });

  it('answers input that is not JSON with invalid_json over tRPC, as over REST', async () => {
    const headers = { authorization: `Bearer ${d.tokens.member}` };
    const posted = await fetch(`${d.url}/trpc/decisions.deny`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: '{"workspace_id":',
    });
    const queried = await fetch(`${d.url}/trpc/runs.list?input=${encodeURIComponent('{garbage')}`, {
      headers,
    });
    for (const response of [posted, queried]) {
      expect(response.status).toBe(400);
      expect((await response.json()).error.data.error.code).toBe('invalid_json');
    }
  });
});
