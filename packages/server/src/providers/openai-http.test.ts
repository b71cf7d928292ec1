import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { type Deployment, deploy, waitFor } from '../testing/harness.js';
import { backends } from '../testing/stores.js';
import { DEFAULT_MAX_TOOL_CALLS } from './openai.js';
import { COMPLETION_ATTEMPTS, COMPLETION_MAX_BYTES } from './openai-http.js';

const [sqlite] = await backends();

interface Reply {
  status: number;
  headers?: Record<string, string>;
  body: string;
  /** Sends only this many characters of the body, then closes the connection. */
  cutAfter?: number;
  /** Closes the connection before any answer. */
  drop?: boolean;
  /** Sends the head and the start of the body, then nothing more, never ending it. */
  hang?: boolean;
}

const answer = (content: string): Reply => ({
  status: 200,
  body: JSON.stringify({ choices: [{ index: 0, message: { role: 'assistant', content } }] }),
});

/**
 * A chat-completions stand-in shared by the file's runs: each run names a model of its own
 * (`model()` registers one), whose nth request (1-based) is answered with `reply(n, its
 * authorization)`.
 */
async function startStub() {
  const models = new Map<string, { reply: Replier; requests: number }>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const name = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { model: string }).model;
      const model = models.get(name);
      if (!model) {
        res.writeHead(500).end(`no model ${name}`);
        return;
      }
      model.requests += 1;
      const out = model.reply(model.requests, req.headers.authorization ?? '');
      if (out.drop) {
        res.socket?.destroy();
        return;
      }
      res.writeHead(out.status, { 'content-type': 'application/json', ...out.headers });
      if (out.hang) {
        res.write(out.body.slice(0, 10));
        return;
      }
      if (out.cutAfter === undefined) {
        res.end(out.body);
        return;
      }
      // The connection drops partway through the body its length announced.
      res.write(out.body.slice(0, out.cutAfter), () => res.socket?.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    server,
    url: `http://127.0.0.1:${port}/v1`,
    /** A model name of its own answered by `reply`, and how many requests it has had. */
    model(reply: Replier) {
      const name = `m${models.size + 1}`;
      const model = { reply, requests: 0 };
      models.set(name, model);
      return { name, requests: () => model.requests };
    },
  };
}

type Replier = (n: number, authorization: string) => Reply;

// Most cases wait on real time (a retry's backoff, the round's time limit) and each run has a
// model of its own, so they run side by side on one kernel; a case that needs other settings
// starts its own kernel on the same stand-in.
describe.concurrent('openai provider: rate limits, server errors and oversized answers', () => {
  let shared: Deployment;
  let stub: Awaited<ReturnType<typeof startStub>>;
  beforeAll(async () => {
    stub = await startStub();
    shared = await deploy(sqlite!, {
      openai: { baseUrl: stub.url, apiKey: 'sk-test', model: 'm' },
    });
  });
  afterAll(async () => {
    await shared?.close();
    stub?.server.close();
  });

  /** Runs a model answered by `reply` to its end; on a kernel of its own when `settings` are given. */
  async function runToEnd(
    reply: Replier,
    settings?: { apiKey?: string; maxToolCalls?: number; timeoutMs?: number },
    onTestFinished?: TestContext['onTestFinished'],
  ) {
    let d = shared;
    if (settings) {
      d = await deploy(sqlite!, {
        openai: { baseUrl: stub.url, apiKey: 'sk-test', model: 'm', ...settings },
      });
      onTestFinished!(() => d.close());
    }
    const model = stub.model(reply);
    const created = await d.member.post(`${d.ws}/runs`, {
      approval_mode: 'bypass',
      input: 'hello',
      provider: { kind: 'openai', model: model.name },
    });
    const run = await waitFor(async () => {
      const r = (await d.member.get(`${d.ws}/runs/${created.body.id}`)).body;
      return r.state !== 'running' && r;
    });
    return { run, d, requests: model.requests };
  }

  it('asks again after a 429 whose Retry-After has passed, and the run completes', async () => {
    const { run, requests } = await runToEnd((n) =>
      n === 1
        ? {
            status: 429,
            headers: { 'retry-after': '0' },
            body: '{"error":{"message":"slow down"}}',
          }
        : answer('hi'),
    );
    expect(run).toMatchObject({ state: 'completed', final_answer: 'hi' });
    expect(requests()).toBe(2);
  });

  it('asks again after a 503 with a body that is not JSON, within a bounded number of requests', async () => {
    const { run, requests } = await runToEnd(() => ({
      status: 503,
      headers: { 'retry-after': '0' },
      body: '<html>upstream down</html>',
    }));
    expect(run).toMatchObject({
      state: 'failed',
      error: { code: 'provider_error', detail: 'HTTP 503: <html>upstream down</html>' },
    });
    expect(requests()).toBe(COMPLETION_ATTEMPTS);
  });

  // 408 (the endpoint timed out reading the request) and 529 (overloaded, from some gateways)
  // pass with time, as the OpenAI and Anthropic client libraries read them.
  it.each([408, 529])('asks again after a %i, and the run completes', async (status) => {
    const { run, requests } = await runToEnd((n) =>
      n === 1
        ? { status, headers: { 'retry-after': '0' }, body: '{"error":{"message":"try again"}}' }
        : answer('hi'),
    );
    expect(run).toMatchObject({ state: 'completed', final_answer: 'hi' });
    expect(requests()).toBe(2);
  });

  it('does not ask again after a 400, which asking again cannot change', async () => {
    const { run, requests } = await runToEnd(() => ({
      status: 400,
      body: '{"error":{"message":"bad"}}',
    }));
    expect(run).toMatchObject({ state: 'failed', error: { code: 'provider_error' } });
    expect(requests()).toBe(1);
  });

  it('fails at once with provider_rate_limited when the server asks for a wait too long to hold the run', async () => {
    const { run, requests } = await runToEnd(() => ({
      status: 429,
      headers: { 'retry-after': '3600' },
      body: '{"error":{"message":"quota"}}',
    }));
    expect(run).toMatchObject({ state: 'failed', error: { code: 'provider_rate_limited' } });
    expect(requests()).toBe(1);
  });

  it("fails provider_rate_limited, quoting the 429, when the round's time runs out waiting to ask again", async ({
    onTestFinished,
  }) => {
    const { run, requests } = await runToEnd(
      () => ({
        status: 429,
        headers: { 'retry-after': '20' },
        body: '{"error":{"message":"slow down"}}',
      }),
      { timeoutMs: 1000 },
      onTestFinished,
    );
    expect(run).toMatchObject({
      state: 'failed',
      error: {
        code: 'provider_rate_limited',
        detail:
          'HTTP 429: {"error":{"message":"slow down"}} (the round\'s time limit, airlock serve --model-timeout, ran out waiting 20 s to ask again)',
      },
    });
    expect(requests()).toBe(1);
  });

  it('says the connection closed mid-answer when the endpoint drops it partway through the body', async () => {
    const whole = answer('hi');
    const { run, requests } = await runToEnd(() => ({
      ...whole,
      headers: { 'content-length': String(whole.body.length) },
      cutAfter: 10,
    }));
    expect(run).toMatchObject({
      state: 'failed',
      error: {
        code: 'provider_unreachable',
        detail: expect.stringMatching(/^the connection closed before the whole answer arrived/),
      },
    });
    expect(requests()).toBe(COMPLETION_ATTEMPTS);
  });

  it('asks again when the connection drops partway through the answer, and the run completes', async () => {
    const whole = answer('hi');
    const { run, requests } = await runToEnd((n) =>
      n === 1
        ? { ...whole, headers: { 'content-length': String(whole.body.length) }, cutAfter: 10 }
        : whole,
    );
    expect(run).toMatchObject({ state: 'completed', final_answer: 'hi' });
    expect(requests()).toBe(2);
  });

  it('asks again when the endpoint drops the connection before answering, and the run completes', async () => {
    const { run, requests } = await runToEnd((n) =>
      n === 1 ? { ...answer(''), drop: true } : answer('hi'),
    );
    expect(run).toMatchObject({ state: 'completed', final_answer: 'hi' });
    expect(requests()).toBe(2);
  });

  it("fails provider_timeout, asking once, when the answer's body never ends", async ({
    onTestFinished,
  }) => {
    const { run, d, requests } = await runToEnd(
      () => ({ ...answer('hi'), hang: true }),
      { timeoutMs: 1000 },
      onTestFinished,
    );
    expect(run).toMatchObject({ state: 'failed', error: { code: 'provider_timeout' } });
    expect(requests()).toBe(1);
    expect((await d.member.get(`${d.ws}/runs/${run.id}/tasks`)).body.tasks).toEqual([]);
  });

  // fetch's own text() and json(), which client libraries read with, drop it as well.
  it('reads an answer that starts with a UTF-8 byte order mark, and the run completes', async () => {
    const { run } = await runToEnd(() => ({ ...answer('hi'), body: `\ufeff${answer('hi').body}` }));
    expect(run).toMatchObject({ state: 'completed', final_answer: 'hi' });
  });

  it('fails with provider_response_too_large instead of reading a huge completion', async () => {
    const { run } = await runToEnd(() => answer('x'.repeat(COMPLETION_MAX_BYTES + 1)));
    expect(run).toMatchObject({ state: 'failed', error: { code: 'provider_response_too_large' } });
  });

  it("keeps the API key out of the run's error when the endpoint echoes the Authorization header", async ({
    onTestFinished,
  }) => {
    const apiKey = 'sk-proj-Secret0123456789abcdef';
    const { run } = await runToEnd(
      (_n, authorization) => ({
        status: 401,
        body: JSON.stringify({
          error: { message: `bad credential in "${authorization}"; key ${apiKey} is unknown` },
        }),
      }),
      { apiKey },
      onTestFinished,
    );
    expect(run.state).toBe('failed');
    expect(run.error.code).toBe('provider_error');
    expect(run.error.detail).not.toContain(apiKey);
    expect(run.error.detail).not.toContain('Secret0123');
    expect(run.error.detail).toContain('Bearer [redacted]');
    expect(run.error.detail).toContain('key [redacted] is unknown');
  });

  const calls = (count: number) => ({
    status: 200,
    body: JSON.stringify({
      choices: [
        {
          index: 0,
          finish_reason: 'tool_calls',
          message: {
            role: 'assistant',
            content: null,
            tool_calls: Array.from({ length: count }, (_, index) => ({
              id: `call_${index}`,
              type: 'function',
              function: { name: 'read', arguments: '{}' },
            })),
          },
        },
      ],
    }),
  });

  it('fails the run with provider_too_many_calls, planting none, when one answer asks for more calls than the cap', async () => {
    const { run, d } = await runToEnd(() => calls(DEFAULT_MAX_TOOL_CALLS + 1));
    expect(run).toMatchObject({
      state: 'failed',
      error: {
        code: 'provider_too_many_calls',
        detail: `the model asked for ${DEFAULT_MAX_TOOL_CALLS + 1} tool calls in one round, more than the ${DEFAULT_MAX_TOOL_CALLS} this kernel takes (airlock serve --model-max-calls); none was planted`,
      },
    });
    expect((await d.member.get(`${d.ws}/runs/${run.id}/tasks`)).body.tasks).toEqual([]);
  });

  it('takes the cap the deployment sets', async ({ onTestFinished }) => {
    const { run } = await runToEnd(() => calls(3), { maxToolCalls: 2 }, onTestFinished);
    expect(run).toMatchObject({ state: 'failed', error: { code: 'provider_too_many_calls' } });
  });

  it("keeps a base URL's user name and password out of the run's error, and names why the endpoint is unreachable", async ({
    onTestFinished,
  }) => {
    const d = await deploy(sqlite!, {
      openai: {
        baseUrl: 'http://proxy-user:s3cret-pass@127.0.0.1:9/v1',
        model: 'm',
        allowedBaseUrls: ['http://127.0.0.1:9/v1'],
      },
    });
    onTestFinished(() => d.close());
    const created = await d.member.post(`${d.ws}/runs`, {
      approval_mode: 'bypass',
      input: 'hello',
      provider: { kind: 'openai' },
    });
    const run = await waitFor(async () => {
      const r = (await d.member.get(`${d.ws}/runs/${created.body.id}`)).body;
      return r.state !== 'running' && r;
    });
    expect(run).toMatchObject({ state: 'failed', error: { code: 'provider_unreachable' } });
    expect(run.error.detail).not.toContain('s3cret');
    expect(run.error.detail).toContain('http://[redacted]@127.0.0.1:9/v1');
    const refused = await d.member.post(`${d.ws}/runs`, {
      approval_mode: 'bypass',
      input: 'hello',
      provider: { kind: 'openai', base_url: 'http://127.0.0.1:9/v1' },
    });
    const down = await waitFor(async () => {
      const r = (await d.member.get(`${d.ws}/runs/${refused.body.id}`)).body;
      return r.state !== 'running' && r;
    });
    expect(down.error.detail).toBe('fetch failed (bad port)');
  });
});
