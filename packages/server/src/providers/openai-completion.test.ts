import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type Deployment, deploy, waitFor } from '../testing/harness.js';
import { backends } from '../testing/stores.js';
import { parseCompletion } from './openai-completion.js';
import { ProviderError } from './types.js';

const [sqlite] = await backends();

interface ChatMessage {
  role: string;
  content: string | null;
  tool_call_id?: string;
  tool_calls?: { id: string }[];
}

/** A chat-completions stand-in: its first answer is `first`, every later one is the final answer `done`. */
async function startStub(first: Record<string, unknown>) {
  const requests: ChatMessage[][] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      requests.push((JSON.parse(body) as { messages: ChatMessage[] }).messages);
      const choice =
        requests.length === 1
          ? first
          : { index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'done' } };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ choices: [choice] }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return { server, url: `http://127.0.0.1:${port}/v1`, requests };
}

const readCall = (id: string, args: string) => ({
  id,
  type: 'function',
  function: { name: 'read', arguments: args },
});

describe('openai provider: completions that are cut short or reuse a call id', () => {
  let d: Deployment;
  let stub: Awaited<ReturnType<typeof startStub>>;
  afterEach(async () => {
    await d?.close();
    stub?.server.close();
  });

  /** Starts a bypass run, commits every call it plants with `result of <key>`, and waits for its end. */
  async function runToEnd(first: Record<string, unknown>) {
    stub = await startStub(first);
    d = await deploy(sqlite!, { openai: { baseUrl: stub.url, apiKey: 'sk-test', model: 'm' } });
    const created = await d.member.post(`${d.ws}/runs`, {
      approval_mode: 'bypass',
      input: 'read twice',
      provider: { kind: 'openai', tools: [{ name: 'read' }] },
    });
    const runId = created.body.id as string;
    const executed: unknown[] = [];
    const run = await waitFor(async () => {
      const inbox = await d.executor.get('/executor_api/v1/inbox');
      for (const item of inbox.body.items) {
        if (item.run_id !== runId) continue;
        const task = `/executor_api/v1/runs/${runId}/tasks/${item.task_key}`;
        const claim = await d.executor.post(`${task}/claim`);
        if (claim.status !== 200) continue;
        executed.push(item.tool_input);
        await d.executor.post(`${task}/commit`, {
          claim_id: claim.body.claim_id,
          outcome: 'succeeded',
          result: `result of ${item.task_key}`,
        });
      }
      const r = (await d.member.get(`${d.ws}/runs/${runId}`)).body;
      return r.state !== 'running' && r;
    });
    return { run, executed };
  }

  it('fails a completion cut off at the output limit instead of running its truncated call', async () => {
    const { run, executed } = await runToEnd({
      index: 0,
      finish_reason: 'length',
      message: { role: 'assistant', content: null, tool_calls: [readCall('c1', '{"path": "/et')] },
    });
    expect(run).toMatchObject({ state: 'failed', error: { code: 'provider_truncated' } });
    expect(executed).toEqual([]);
  });

  it('feeds back each result under its own id when the model gave two calls one id', async () => {
    const { run } = await runToEnd({
      index: 0,
      finish_reason: 'tool_calls',
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [readCall('call_1', '{}'), readCall('call_1', '{}')],
      },
    });
    expect(run).toMatchObject({ state: 'completed', final_answer: 'done' });
    const second = stub.requests[1]!;
    const offered = second.find((m) => m.role === 'assistant')!.tool_calls!.map((c) => c.id);
    const answered = second.filter((m) => m.role === 'tool').map((m) => m.tool_call_id);
    expect(new Set(offered).size).toBe(2);
    expect(answered).toEqual(offered);
    expect(second.filter((m) => m.role === 'tool').map((m) => m.content)).toEqual([
      'result of t1',
      'result of t2',
    ]);
  });

  it.each([
    [
      { content: null, tool_calls: { 0: 'read' } },
      'the completion is malformed: its tool_calls is not a list',
    ],
    [{ content: 42 }, 'the completion is malformed: its message content is not text'],
    [
      { content: null, tool_calls: [null] },
      'the completion is malformed: tool call 0 is not an object',
    ],
    [
      { content: null, tool_calls: [{ id: 'c1', function: { name: 42 } }] },
      'tool call 0 has no name',
    ],
  ])(
    "fails a completion whose message is %j saying what is wrong, not in JavaScript's words",
    async (message, detail) => {
      const { run, executed } = await runToEnd({
        index: 0,
        message: { role: 'assistant', ...message },
      });
      expect(run).toMatchObject({ state: 'failed', error: { code: 'provider_error', detail } });
      expect(executed).toEqual([]);
    },
  );

  it("fails a completion the model refused with its refusal, rather than complete with ''", async () => {
    const { run } = await runToEnd({
      index: 0,
      finish_reason: 'stop',
      message: { role: 'assistant', content: null, refusal: "I can't help with that." },
    });
    expect(run).toMatchObject({
      state: 'failed',
      final_answer: null,
      error: { code: 'provider_refused', detail: "the model refused: I can't help with that." },
    });
  });

  it('takes arguments a compatible server sends as an object as the call input', async () => {
    const { run, executed } = await runToEnd({
      index: 0,
      finish_reason: 'tool_calls',
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'read', arguments: { path: '/tmp' } } },
        ],
      },
    });
    expect(run).toMatchObject({ state: 'completed', final_answer: 'done' });
    expect(executed).toEqual([{ path: '/tmp' }]);
  });
});

describe('an answer that is no completion (an error object, a page, nothing)', () => {
  /** The failure parseCompletion throws for a body. */
  function failureOf(body: unknown, secrets: string[] = []): ProviderError {
    return failureOfText(JSON.stringify(body), secrets);
  }

  /** The failure parseCompletion throws for a body's text. */
  function failureOfText(text: string, secrets: string[]): ProviderError {
    try {
      parseCompletion(text, { maxToolCalls: 8, secrets });
    } catch (error) {
      if (error instanceof ProviderError) return error;
      throw error;
    }
    throw new Error('the completion was taken');
  }

  it("quotes the endpoint's error message and code, not only that there is no message", () => {
    const failure = failureOf({
      error: { message: 'The model `m` does not exist', code: 'model_not_found' },
    });
    expect(failure.code).toBe('provider_error');
    expect(failure.detail).toBe(
      'the endpoint answered an error instead of a completion: The model `m` does not exist (model_not_found)',
    );
  });

  it('takes the API key out of the error it quotes, and cuts it to 500 characters', () => {
    const failure = failureOf({ error: `no access for sk-live-1 ${'x'.repeat(900)}` }, [
      'sk-live-1',
    ]);
    expect(failure.detail).not.toContain('sk-live-1');
    expect(failure.detail).toContain('no access for [redacted]');
    expect(failure.detail.length).toBeLessThan(600);
  });

  it('still says the completion has no message when nothing readable explains it', () => {
    expect(failureOf({ error: { type: 'x' } }).detail).toBe('the completion has no message');
    expect(failureOf({ choices: [] }).detail).toBe('the completion has no message');
  });

  // Completed with its text (or ''), the run would end on an answer the model never gave.
  it('fails a completion that stopped for tool calls but carries none, rather than complete the run', () => {
    const stopped = (finish_reason: string, message: Record<string, unknown>) =>
      failureOf({ choices: [{ finish_reason, message: { role: 'assistant', ...message } }] });
    for (const failure of [
      stopped('tool_calls', { content: null }),
      stopped('tool_calls', { content: 'I will list the files.', tool_calls: [] }),
      stopped('function_call', { content: null, function_call: { name: 'ls', arguments: '{}' } }),
      stopped('stop', { content: null, function_call: { name: 'ls', arguments: '{}' } }),
    ]) {
      expect(failure.code).toBe('provider_error');
      expect(failure.detail).toMatch(/^the completion is malformed: it stopped for tool calls/);
    }
  });

  it('quotes the start of an answer that is not JSON (a proxy page, a stream), without the key', () => {
    const page = `<html>Sign in to the proxy (session sk-live-1)</html>${'x'.repeat(500)}`;
    const failure = failureOfText(page, ['sk-live-1']);
    expect(failure.code).toBe('provider_error');
    expect(failure.detail).toMatch(
      /^the completion is not JSON; it starts: "<html>Sign in to the proxy \(session \[redacted\]\)<\/html>x+"$/,
    );
    expect(failure.detail.length).toBeLessThan(300);
    expect(failureOfText('  ', []).detail).toBe('the completion is empty');
  });
});

describe('tool-call arguments that are JSON but no object', () => {
  /** The input parseCompletion plants for one call whose arguments text is `args`. */
  function inputFor(args: string): unknown {
    const round = parseCompletion(
      JSON.stringify({
        choices: [
          {
            message: {
              content: null,
              tool_calls: [
                { id: 'c1', type: 'function', function: { name: 'bash', arguments: args } },
              ],
            },
          },
        ],
      }),
      { maxToolCalls: 8 },
    );
    if (round.type !== 'tool_calls') throw new Error('no calls');
    return round.calls[0]!.input;
  }

  it('keeps a string, number or list as text under arguments, as it keeps text that is not JSON', () => {
    expect(inputFor('"rm -rf /"')).toEqual({ arguments: '"rm -rf /"' });
    expect(inputFor('42')).toEqual({ arguments: '42' });
    expect(inputFor('[1,2]')).toEqual({ arguments: '[1,2]' });
    expect(inputFor('rm -rf /')).toEqual({ arguments: 'rm -rf /' });
  });

  // Parsed, such a number would reach the rules, the person asked and the executor as other
  // digits (another account, another id) or as null, none of them what the model wrote.
  it('keeps as text arguments holding a number the kernel would not read as written', () => {
    expect(inputFor('{"account":12345678901234567890}')).toEqual({
      arguments: '{"account":12345678901234567890}',
    });
    expect(inputFor('{"amount":1e400,"note":"1e400 in a string is text"}')).toEqual({
      arguments: '{"amount":1e400,"note":"1e400 in a string is text"}',
    });
    expect(inputFor('{"note":"12345678901234567890","n":9007199254740991,"x":1.5e3}')).toEqual({
      note: '12345678901234567890',
      n: 9007199254740991,
      x: 1500,
    });
  });

  it('reads null as no arguments, and an object as it is', () => {
    expect(inputFor('null')).toEqual({});
    expect(inputFor('{"command":"ls"}')).toEqual({ command: 'ls' });
  });
});
