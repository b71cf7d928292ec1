import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type Deployment, deploy, waitFor } from '../testing/harness.js';
import { backends } from '../testing/stores.js';
import { CALL_INPUT_MAX_DEPTH } from './openai-completion.js';

const all = await backends();

/** A chat-completions endpoint answering its nth request with `message(n)`. */
async function startModel(message: (n: number) => Record<string, unknown>) {
  let requests = 0;
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      requests += 1;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ choices: [{ index: 0, message: message(requests) }] }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1` };
}

const call = (name: string, id: string, args = '{}') => ({
  role: 'assistant',
  content: null,
  tool_calls: [{ id, type: 'function', function: { name, arguments: args } }],
});

describe.each(all)('what the openai provider keeps of a model answer ($name)', (backend) => {
  let d: Deployment | undefined;
  let model: Awaited<ReturnType<typeof startModel>> | undefined;
  afterEach(async () => {
    model?.server.closeAllConnections();
    model?.server.close();
    await d?.close();
    d = model = undefined;
  });

  async function startRun(message: (n: number) => Record<string, unknown>) {
    model = await startModel(message);
    d = await deploy(backend, { openai: { baseUrl: model.url, apiKey: 'sk-test', model: 'm' } });
    const created = await d.member.post(`${d.ws}/runs`, {
      approval_mode: 'bypass',
      input: 'hello',
      provider: { kind: 'openai' },
    });
    return created.body.id as string;
  }

  async function runToEnd(message: (n: number) => Record<string, unknown>) {
    const runId = await startRun(message);
    return waitFor(
      async () => {
        const run = (await d!.member.get(`${d!.ws}/runs/${runId}`)).body;
        return run.state !== 'running' && run;
      },
      { timeoutMs: 20_000 },
    );
  }

  it.skipIf(backend.skip !== null)(
    'a final answer holding NUL ends the run, the NUL kept as U+FFFD (PostgreSQL refused it and the run ran on)',
    async () => {
      const run = await runToEnd(() => ({ role: 'assistant', content: 'done\u0000x' }));
      expect(run).toMatchObject({ state: 'completed', final_answer: 'done\uFFFDx' });
    },
  );

  it.skipIf(backend.skip !== null)('a tool name no store keeps fails the run', async () => {
    const run = await runToEnd(() => call('bash\u0000x', 'c1'));
    expect(run).toMatchObject({ state: 'failed', error: { code: 'provider_error' } });
  });

  it.skipIf(backend.skip !== null)(
    'an id no store keeps as sent (past 200 characters) is answered under its task key',
    async () => {
      const runId = await startRun(() => call('lookup', 'x'.repeat(300)));
      const tasks = await waitFor(async () => {
        const listed = (await d!.member.get(`${d!.ws}/runs/${runId}/tasks`)).body.tasks;
        return listed.length > 0 && listed;
      });
      expect(tasks).toMatchObject([{ tool_name: 'lookup', tool_call_id: null }]);
    },
  );

  it.skipIf(backend.skip !== null)(
    'arguments nested past what a call may carry fail the run provider_error, planting nothing',
    async () => {
      const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
      const run = await runToEnd(() => call('lookup', 'c1', deep));
      expect(run).toMatchObject({
        state: 'failed',
        error: {
          code: 'provider_error',
          detail: `the completion is malformed: tool call 0's arguments nest arrays and objects deeper than ${CALL_INPUT_MAX_DEPTH} levels`,
        },
      });
      expect((await d!.member.get(`${d!.ws}/runs/${run.id}/tasks`)).body.tasks).toEqual([]);
    },
  );

  it.skipIf(backend.skip !== null)(
    'arguments nested as deep as a call may carry are kept',
    async () => {
      const levels = CALL_INPUT_MAX_DEPTH - 1;
      const runId = await startRun(() =>
        call('lookup', 'c1', `{"a":${'['.repeat(levels)}${']'.repeat(levels)}}`),
      );
      const tasks = await waitFor(async () => {
        const listed = (await d!.member.get(`${d!.ws}/runs/${runId}/tasks`)).body.tasks;
        return listed.length > 0 && listed;
      });
      expect(tasks).toMatchObject([{ tool_name: 'lookup', state: 'runnable' }]);
    },
  );
});
