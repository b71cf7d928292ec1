import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { claimAndCommit, type Deployment, deploy, waitFor } from '../../testing/harness.js';
import { backends } from '../../testing/stores.js';
import { REFUSED_ROUNDS_MAX } from './refusal-loop.js';

/** A chat-completions endpoint whose nth answer is `answer(n)`: a call of that tool, or a final answer. */
async function modelCalling(answer: (n: number) => string) {
  const model = { requests: 0, server: undefined as Server | undefined, url: '' };
  model.server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      model.requests += 1;
      const tool = answer(model.requests);
      const message =
        tool === 'final'
          ? { role: 'assistant', content: 'done' }
          : {
              role: 'assistant',
              content: null,
              tool_calls: [
                {
                  id: `c${model.requests}`,
                  type: 'function',
                  function: { name: tool, arguments: '{}' },
                },
              ],
            };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ choices: [{ index: 0, message }] }));
    });
  });
  await new Promise<void>((resolve) => model.server!.listen(0, '127.0.0.1', resolve));
  model.url = `http://127.0.0.1:${(model.server.address() as AddressInfo).port}/v1`;
  return model;
}

for (const backend of await backends()) {
  describe.skipIf(backend.skip !== null)(
    `a model refused round after round (${backend.name})`,
    () => {
      let d: Deployment | undefined;
      let model: Awaited<ReturnType<typeof modelCalling>> | undefined;
      afterEach(async () => {
        model?.server?.closeAllConnections();
        model?.server?.close();
        await d?.close();
        d = model = undefined;
      });

      /** Starts a run that may call `ls` only (`rm` is refused at once); answers its id. */
      async function startRun(answer: (n: number) => string): Promise<string> {
        model = await modelCalling(answer);
        d = await deploy(backend, {
          openai: { baseUrl: model.url, apiKey: 'sk-test', model: 'm' },
        });
        const created = await d.member.post(`${d.ws}/runs`, {
          approval_mode: 'rules',
          approval_rules: [{ tool: 'ls', verdict: 'allow' }],
          input: 'hello',
          provider: { kind: 'openai' },
        });
        expect(created.status).toBe(201);
        return created.body.id;
      }

      async function ended(runId: string) {
        return waitFor(
          async () => {
            const run = (await d!.member.get(`${d!.ws}/runs/${runId}`)).body;
            return run.state !== 'running' && run;
          },
          { timeoutMs: 20_000, what: 'the run to end' },
        );
      }

      it('ends failed refused_rounds_exceeded, not asking the model again', async () => {
        const run = await ended(await startRun(() => 'rm'));
        expect(run).toMatchObject({ state: 'failed', error: { code: 'refused_rounds_exceeded' } });
        expect(run.round).toBe(REFUSED_ROUNDS_MAX);
        expect(model!.requests).toBe(REFUSED_ROUNDS_MAX);
      });

      it('ends a scripted run the same way, whose rounds are taken inline', async () => {
        d = await deploy(backend);
        const refused = { tool_calls: [{ name: 'rm' }] };
        const created = await d.member.post(`${d.ws}/runs`, {
          approval_mode: 'rules',
          approval_rules: [{ tool: 'ls', verdict: 'allow' }],
          input: 'x',
          provider: {
            kind: 'scripted',
            rounds: [
              ...Array.from({ length: REFUSED_ROUNDS_MAX }, () => refused),
              { final: 'done' },
            ],
          },
        });
        expect(created.status).toBe(201);
        expect(await ended(created.body.id)).toMatchObject({
          state: 'failed',
          round: REFUSED_ROUNDS_MAX,
          error: { code: 'refused_rounds_exceeded' },
        });
      });

      it('counts only refusals in a row: a round whose call ran starts the count again', async () => {
        const max = REFUSED_ROUNDS_MAX;
        // One refusal short of the limit, a granted call, one short again, then an answer.
        const runId = await startRun((n) => (n === max ? 'ls' : n === 2 * max ? 'final' : 'rm'));
        const granted = await waitFor(async () => {
          const tasks = (await d!.member.get(`${d!.ws}/runs/${runId}/tasks`)).body.tasks;
          return tasks.find((t: { tool_name: string }) => t.tool_name === 'ls');
        });
        const committed = await claimAndCommit(d!, runId, granted.key, {
          outcome: 'succeeded',
          result: 'a b c',
        });
        expect(committed.status).toBe(200);
        expect(await ended(runId)).toMatchObject({ state: 'completed', final_answer: 'done' });
        expect(model!.requests).toBe(2 * max);
      });
    },
  );
}
