import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type Deployment, deploy, waitFor } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const [sqlite] = await backends();

interface ChatRequest {
  model: string;
  messages: { role: string; content: string | null; tool_call_id?: string }[];
  tools?: { type: string; function: { name: string } }[];
}

/** A local stand-in speaking chat-completions: one tool call, then a final answer quoting the tool result. */
async function startStub(): Promise<{
  server: Server;
  url: string;
  requests: ChatRequest[];
  auth: string[];
}> {
  const requests: ChatRequest[] = [];
  const auth: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      if (req.url !== '/v1/chat/completions' || req.method !== 'POST') {
        res.writeHead(404).end();
        return;
      }
      const request = JSON.parse(body) as ChatRequest;
      requests.push(request);
      auth.push(req.headers.authorization ?? '');
      const toolMessage = request.messages.find((m) => m.role === 'tool');
      const message = toolMessage
        ? { role: 'assistant', content: `I read: ${toolMessage.content}` }
        : {
            role: 'assistant',
            content: null,
            tool_calls: [
              {
                id: 'call_abc',
                type: 'function',
                function: { name: 'deploy', arguments: '{"env":"prod"}' },
              },
            ],
          };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ id: 'x', object: 'chat.completion', choices: [{ index: 0, message }] }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return { server, url: `http://127.0.0.1:${port}/v1`, requests, auth };
}

describe('openai provider against a local chat-completions stub', () => {
  let d: Deployment;
  let stub: Awaited<ReturnType<typeof startStub>>;
  afterEach(async () => {
    await d?.close();
    stub?.server.close();
  });

  it('parks the model call; the denial is what the model reads next', async () => {
    stub = await startStub();
    d = await deploy(sqlite!, {
      openai: { baseUrl: stub.url, apiKey: 'sk-test', model: 'stub-model' },
    });
    const created = await d.agent.post(`${d.ws}/runs`, {
      approval_mode: 'ask',
      input: 'ship it',
      provider: {
        kind: 'openai',
        tools: [
          {
            name: 'deploy',
            parameters: { type: 'object', properties: { env: { type: 'string' } } },
          },
        ],
      },
    });
    expect(created.status).toBe(201);
    const parked = await waitFor(async () => {
      const task = await d.member.get(`${d.ws}/runs/${created.body.id}/tasks/t1`);
      return task.status === 200 && task.body.state === 'needs_approval' ? task.body : null;
    });
    expect(parked).toMatchObject({
      tool_name: 'deploy',
      tool_input: { env: 'prod' },
      tool_call_id: 'call_abc',
    });
    await d.member.post(`${d.ws}/runs/${created.body.id}/tasks/t1/deny`, { reason: 'freeze week' });
    const run = await waitFor(async () => {
      const r = await d.member.get(`${d.ws}/runs/${created.body.id}`);
      return r.body.state !== 'running' ? r.body : null;
    });
    expect(run.state).toBe('completed');
    expect(run.final_answer).toContain('approval_denied');
    expect(run.final_answer).toContain('freeze week');
    expect(stub.requests).toHaveLength(2);
    expect(stub.requests[0]!.model).toBe('stub-model');
    expect(stub.requests[0]!.tools?.[0]?.function.name).toBe('deploy');
    expect(stub.requests[1]!.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(stub.requests[1]!.messages[2]!.tool_call_id).toBe('call_abc');
    expect(stub.auth).toEqual(['Bearer sk-test', 'Bearer sk-test']);
  });

  it("never sends the deployment's key to a base URL a run names", async () => {
    stub = await startStub();
    d = await deploy(sqlite!, {
      openai: { apiKey: 'sk-secret', model: 'm', allowedBaseUrls: [stub.url] },
    });
    const created = await d.agent.post(`${d.ws}/runs`, {
      approval_mode: 'bypass',
      input: 'x',
      provider: { kind: 'openai', base_url: stub.url },
    });
    await waitFor(async () => stub.requests.length > 0);
    expect(stub.auth[0]).toBe('');
    await d.member.post(`${d.ws}/runs/${created.body.id}/stop`);
  });

  it('fails the run with provider_unreachable when the endpoint is down', async () => {
    d = await deploy(sqlite!, {
      openai: { model: 'm', allowedBaseUrls: ['http://127.0.0.1:9/v1'] },
    });
    const created = await d.agent.post(`${d.ws}/runs`, {
      approval_mode: 'ask',
      input: 'x',
      provider: { kind: 'openai', base_url: 'http://127.0.0.1:9/v1' },
    });
    const run = await waitFor(async () => {
      const r = await d.member.get(`${d.ws}/runs/${created.body.id}`);
      return r.body.state !== 'running' ? r.body : null;
    });
    expect(run).toMatchObject({ state: 'failed', error: { code: 'provider_unreachable' } });
  });

  it('refuses at creation a run naming no model on a deployment that names none, creating nothing', async () => {
    // An endpoint that is down (port 9): the run that names a model is stopped before it matters.
    d = await deploy(sqlite!, { openai: { baseUrl: 'http://127.0.0.1:9/v1' } });
    const refused = await d.agent.post(`${d.ws}/runs`, {
      approval_mode: 'bypass',
      input: 'x',
      provider: { kind: 'openai' },
    });
    expect(refused.status).toBe(422);
    expect(refused.body.error).toMatchObject({
      code: 'invalid_configuration',
      problems: [{ code: 'model_missing', pointer: '/provider/model' }],
    });
    expect((await d.member.get(`${d.ws}/runs`)).body.runs).toEqual([]);
    const named = await d.agent.post(`${d.ws}/runs`, {
      approval_mode: 'bypass',
      input: 'x',
      provider: { kind: 'openai', model: 'm' },
    });
    expect(named.status).toBe(201);
    await d.member.post(`${d.ws}/runs/${named.body.id}/stop`);
  });
});
