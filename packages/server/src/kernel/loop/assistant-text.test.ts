import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ASSISTANT_TEXT_MAX } from '../../providers/types.js';
import { claimAndCommit, type Deployment, deploy, waitFor } from '../../testing/harness.js';
import { backends } from '../../testing/stores.js';

/**
 * What an `openai` model writes alongside its tool calls (its plan) is kept
 * with the round and sent back as that assistant message's content: it was
 * dropped, and the next request said `content: null`, so the model lost its
 * own plan. It is kept durably: a kernel restart between the rounds keeps it.
 */

const all = await backends();

type Message = Record<string, unknown>;

/** A chat-completions endpoint answering its nth request with `message(n)`, keeping each request's messages. */
async function startModel(message: (n: number) => Message) {
  const asked: Message[][] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      asked.push(
        (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { messages: Message[] }).messages,
      );
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ choices: [{ index: 0, message: message(asked.length) }] }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, asked, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1` };
}

const twoCalls = (content: string | null): Message => ({
  role: 'assistant',
  content,
  tool_calls: [
    { id: 'c1', type: 'function', function: { name: 'ls', arguments: '{}' } },
    { id: 'c2', type: 'function', function: { name: 'cat', arguments: '{"path":"a"}' } },
  ],
});

describe.each(all)('what the model wrote with its calls ($name)', (backend) => {
  let d: Deployment | undefined;
  let model: Awaited<ReturnType<typeof startModel>> | undefined;
  afterEach(async () => {
    model?.server.closeAllConnections();
    model?.server.close();
    await d?.close();
    d = model = undefined;
  });

  /** Runs one round of two calls said with `content`, restarts the kernel, answers both, and waits for the end. */
  async function twoRounds(content: string | null) {
    model = await startModel((n) =>
      n === 1 ? twoCalls(content) : { role: 'assistant', content: 'done' },
    );
    d = await deploy(backend, { openai: { baseUrl: model.url, apiKey: 'sk-test', model: 'm' } });
    const created = await d.member.post(`${d.ws}/runs`, {
      approval_mode: 'bypass',
      input: 'tidy the folder',
      provider: { kind: 'openai' },
    });
    const runId = created.body.id as string;
    await waitFor(async () => {
      const tasks = (await d!.member.get(`${d!.ws}/runs/${runId}/tasks`)).body.tasks;
      return tasks.filter((t: { state: string }) => t.state === 'runnable').length === 2;
    });
    await d.restart();
    for (const key of ['t1', 't2']) {
      await claimAndCommit(d, runId, key, { outcome: 'succeeded', result: `out ${key}` });
    }
    const run = await waitFor(
      async () => {
        const body = (await d!.member.get(`${d!.ws}/runs/${runId}`)).body;
        return body.state !== 'running' && body;
      },
      { timeoutMs: 20_000 },
    );
    expect(run).toMatchObject({ state: 'completed', final_answer: 'done' });
    const events = (await d.member.get(`${d.ws}/runs/${runId}/events`)).body.events as {
      type: string;
      data: Record<string, unknown>;
    }[];
    const started = events.filter((e) => e.type === 'run.round_started').map((e) => e.data);
    return { second: model.asked[1] ?? [], started };
  }

  it.skipIf(backend.skip !== null)(
    'the next request carries the plan as the assistant message, across a kernel restart',
    async () => {
      const { second, started } = await twoRounds('I will first list the files');
      const assistant = second.filter((m) => m.role === 'assistant');
      expect(assistant).toHaveLength(1);
      expect(assistant[0]).toMatchObject({
        content: 'I will first list the files',
        tool_calls: [{ id: 'c1' }, { id: 'c2' }],
      });
      expect(second.filter((m) => m.role === 'tool').map((m) => m.content)).toEqual([
        'out t1',
        'out t2',
      ]);
      expect(started).toEqual([{ round: 1, calls: 2, text: 'I will first list the files' }]);
    },
  );

  it.skipIf(backend.skip !== null)(
    'calls said without text are sent back with content null',
    async () => {
      const { second, started } = await twoRounds(null);
      expect(second.find((m) => m.role === 'assistant')).toMatchObject({ content: null });
      expect(started).toEqual([{ round: 1, calls: 2 }]);
    },
  );

  it.skipIf(backend.skip !== null)(
    `a plan past ${ASSISTANT_TEXT_MAX} characters is kept cut, with an ellipsis`,
    async () => {
      const { second } = await twoRounds('p'.repeat(ASSISTANT_TEXT_MAX + 500));
      const content = second.find((m) => m.role === 'assistant')?.content as string;
      expect(content).toBe(`${'p'.repeat(ASSISTANT_TEXT_MAX - 1)}…`);
    },
  );
});
