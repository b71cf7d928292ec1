import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { AirlockOptions } from '../airlock.js';
import { type Deployment, deploy, waitFor } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const [sqlite] = await backends();

/** A host inside the deployment's network, as a run may name it: it counts every request it gets. */
async function startEndpoint(): Promise<{ server: Server; url: string; hits: string[] }> {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      hits.push(`${req.method} ${req.url}`);
      const message = {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'deploy', arguments: '{}' } }],
      };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ choices: [{ index: 0, finish_reason: 'tool_calls', message }] }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, hits };
}

describe("a run's provider.base_url against the deployment's --model-base-urls", () => {
  let d: Deployment | undefined;
  let endpoint: Awaited<ReturnType<typeof startEndpoint>> | undefined;
  afterEach(async () => {
    await d?.close();
    endpoint?.server.close();
    d = endpoint = undefined;
  });

  const runWith = (deployment: Deployment, baseUrl: string) =>
    deployment.agent.post(`${deployment.ws}/runs`, {
      approval_mode: 'ask',
      input: 'x',
      provider: { kind: 'openai', base_url: baseUrl },
    });

  it('refuses at creation a base URL the deployment does not list, creating nothing and sending nothing', async () => {
    endpoint = await startEndpoint();
    d = await deploy(sqlite!, { openai: { apiKey: 'sk-test', model: 'm' } });
    // The `?` would turn the appended /chat/completions into a query: still refused.
    for (const url of [endpoint.url, `${endpoint.url}/x?`, 'http://169.254.169.254/latest']) {
      const refused = await runWith(d, url);
      expect(refused.status).toBe(422);
      expect(refused.body.error.code).toBe('invalid_configuration');
      expect(refused.body.error.problems).toEqual([
        expect.objectContaining({ code: 'base_url_not_allowed', pointer: '/provider/base_url' }),
      ]);
      expect(refused.body.error.problems[0].message).toContain('--model-base-urls');
    }
    const conversation = (await d.agent.post('/agent_api/v1/conversations')).body.id as string;
    await d.agent.put('/agent_api/v1/profile/configuration', { approval_mode: 'ask' });
    const turn = await d.agent.post(`/agent_api/v1/conversations/${conversation}/inputs`, {
      input: 'x',
      provider: { kind: 'openai', base_url: endpoint.url },
    });
    expect(turn.status).toBe(422);
    expect(turn.body.error.problems[0].pointer).toBe('/provider/base_url');
    expect((await d.member.get(`${d.ws}/runs`)).body.runs).toEqual([]);
    expect(endpoint.hits).toEqual([]);
  });

  it('admits a listed base URL written with another case, default port or trailing slash, and the deployment own', async () => {
    endpoint = await startEndpoint();
    const port = new URL(endpoint.url).port;
    d = await deploy(sqlite!, {
      openai: {
        baseUrl: 'https://api.example.test/v1',
        model: 'm',
        allowedBaseUrls: [`HTTP://127.0.0.1:${port}/v1/`],
      },
    });
    expect((await runWith(d, endpoint.url)).status).toBe(201);
    await waitFor(async () => endpoint!.hits.length === 1);
    expect(endpoint.hits).toEqual(['POST /v1/chat/completions']);
    expect((await runWith(d, 'https://API.example.test:443/v1/')).status).toBe(201);
    expect((await runWith(d, `http://127.0.0.1:${port}/v2`)).status).toBe(422);
  });

  it('admits any http(s) base URL with *, but never one carrying credentials', async () => {
    endpoint = await startEndpoint();
    d = await deploy(sqlite!, { openai: { model: 'm', allowedBaseUrls: ['*'] } });
    expect((await runWith(d, endpoint.url)).status).toBe(201);
    await waitFor(async () => endpoint!.hits.length === 1);
    const withCredentials = endpoint.url.replace('http://', 'http://u:p@');
    expect((await runWith(d, withCredentials)).status).toBe(422);
    // The provider adds /chat/completions after the base URL: after a query it cannot work.
    for (const suffix of ['?api-version=1', '#v1']) {
      const refused = await runWith(d, `${endpoint.url}${suffix}`);
      expect(refused.status).toBe(422);
      expect(refused.body.error.problems[0].message).toContain('query or fragment');
    }
    expect(endpoint.hits).toHaveLength(1);
  });

  it('does not follow a redirect from an admitted endpoint to one the deployment does not list', async () => {
    endpoint = await startEndpoint();
    const target = `${endpoint.url}/chat/completions`;
    const redirecting = createServer((req, res) => {
      req.resume();
      res.writeHead(307, { location: target }).end();
    });
    await new Promise<void>((resolve) => redirecting.listen(0, '127.0.0.1', resolve));
    try {
      const port = (redirecting.address() as AddressInfo).port;
      d = await deploy(sqlite!, { openai: { baseUrl: `http://127.0.0.1:${port}/v1`, model: 'm' } });
      const created = await d.agent.post(`${d.ws}/runs`, {
        approval_mode: 'ask',
        input: 'x',
        provider: { kind: 'openai' },
      });
      const ended = await waitFor(async () => {
        const r = (await d!.member.get(`${d!.ws}/runs/${created.body.id}`)).body;
        return r.state !== 'running' && r;
      });
      expect(ended).toMatchObject({ state: 'failed', error: { code: 'provider_error' } });
      expect(ended.error.detail).toContain(`HTTP 307: the endpoint redirects to "${target}"`);
      expect(endpoint.hits).toEqual([]);
    } finally {
      redirecting.close();
    }
  });

  it('fails a stored run whose base URL the deployment no longer admits at its round, sending nothing', async () => {
    endpoint = await startEndpoint();
    const options: Omit<AirlockOptions, 'dataDir' | 'databaseUrl'> = {
      openai: { model: 'm', allowedBaseUrls: ['*'] },
    };
    d = await deploy(sqlite!, options);
    const created = await runWith(d, endpoint.url);
    expect(created.status).toBe(201);
    const run = created.body.id as string;
    await waitFor(async () => {
      const task = await d!.member.get(`${d!.ws}/runs/${run}/tasks/t1`);
      return task.status === 200 && task.body.state === 'needs_approval';
    });
    expect(endpoint.hits).toHaveLength(1);
    // The upgrade: the same store, served without the list.
    options.openai = { model: 'm' };
    await d.restart();
    await d.member.post(`${d.ws}/runs/${run}/tasks/t1/deny`, { reason: 'no' });
    const ended = await waitFor(async () => {
      const r = (await d!.member.get(`${d!.ws}/runs/${run}`)).body;
      return r.state !== 'running' && r;
    });
    expect(ended).toMatchObject({ state: 'failed', error: { code: 'provider_base_url_refused' } });
    expect(ended.error.detail).toContain('--model-base-urls');
    // A regenerate would copy the original's provider: it is refused, and nothing is made.
    const runsBefore = (await d.member.get(`${d.ws}/runs`)).body;
    const again = await d.agent.post(`/agent_api/v1/runs/${run}/regenerate`);
    expect(again.status).toBe(422);
    expect(again.body.error.code).toBe('invalid_configuration');
    expect(again.body.error.problems[0]).toMatchObject({
      code: 'base_url_not_allowed',
      pointer: '/provider/base_url',
    });
    expect((await d.member.get(`${d.ws}/runs`)).body).toEqual(runsBefore);
    expect(endpoint.hits).toHaveLength(1);
  });
});
