import { afterEach, describe, expect, it } from 'vitest';
import { claimAndCommit, type Deployment, deploy, waitFor } from '../../testing/harness.js';
import { finalMessage, startModelServer, toolCallMessage } from '../../testing/model-server.js';
import { backends } from '../../testing/stores.js';

/** A chat-completions endpoint whose nth answer is `answer(n)`: a call of that tool, or a final answer. */
const modelCalling = (answer: (n: number) => string) =>
  startModelServer((n) => {
    const tool = answer(n);
    return tool === 'final' ? finalMessage() : toolCallMessage(tool, `c${n}`);
  });

import { REFUSED_ROUNDS_MAX } from './refusal-loop.js';

for (const backend of await backends()) {
  describe.skipIf(backend.skip !== null)(
    `a model refused round after round (${backend.name})`,
    () => {
      let d: Deployment | undefined;
      let model: Awaited<ReturnType<typeof modelCalling>> | undefined;
      afterEach(async () => {
        model?.close();
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

      it('counts a question refused as malformed (invalid_question) as a refusal too', async () => {
        // `ask` with no prompt is refused before any person sees it, round after round.
        model = await modelCalling(() => 'ask');
        d = await deploy(backend, {
          openai: { baseUrl: model.url, apiKey: 'sk-test', model: 'm' },
        });
        const created = await d.member.post(`${d.ws}/runs`, {
          approval_mode: 'bypass',
          input: 'hello',
          provider: { kind: 'openai' },
        });
        expect(created.status).toBe(201);
        const run = await ended(created.body.id);
        expect(run).toMatchObject({ state: 'failed', error: { code: 'refused_rounds_exceeded' } });
        expect(run.round).toBe(REFUSED_ROUNDS_MAX);
        expect(model!.requests).toBe(REFUSED_ROUNDS_MAX);
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
