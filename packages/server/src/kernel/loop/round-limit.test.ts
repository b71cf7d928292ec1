import { MODEL_ROUNDS_DEFAULT } from '@airlock/core';
import { afterEach, describe, expect, it } from 'vitest';
import { claimAndCommit, type Deployment, deploy, waitFor } from '../../testing/harness.js';
import { finalMessage, startModelServer, toolCallMessage } from '../../testing/model-server.js';
import { backends } from '../../testing/stores.js';
import { maxRoundsOf } from './round-limit.js';

/** A chat-completions endpoint whose nth answer is `answer(n)`: a call of that tool, or a final answer. */
const modelCalling = (answer: (n: number) => string) =>
  startModelServer((n) => {
    const tool = answer(n);
    return tool === 'final' ? finalMessage() : toolCallMessage(tool, `c${n}`);
  });

describe('maxRoundsOf', () => {
  it('bounds an openai run by its max_rounds, else the default; nothing else', () => {
    expect(maxRoundsOf({ provider: '{"kind":"openai","max_rounds":7}' })).toBe(7);
    expect(maxRoundsOf({ provider: '{"kind":"openai"}' })).toBe(MODEL_ROUNDS_DEFAULT);
    expect(maxRoundsOf({ provider: '{"kind":"scripted","rounds":[]}' })).toBeNull();
    expect(maxRoundsOf({ provider: '{"kind":"gateway"}' })).toBeNull();
  });
});

for (const backend of await backends()) {
  describe.skipIf(backend.skip !== null)(`a run's max_rounds (${backend.name})`, () => {
    let d: Deployment | undefined;
    let model: Awaited<ReturnType<typeof modelCalling>> | undefined;
    afterEach(async () => {
      model?.close();
      await d?.close();
      d = model = undefined;
    });

    /** Starts a run that may call `ls` only (`rm` is refused at once); answers its id. */
    async function startRun(answer: (n: number) => string, maxRounds: number): Promise<string> {
      model = await modelCalling(answer);
      d = await deploy(backend, { openai: { baseUrl: model.url, apiKey: 'sk-test', model: 'm' } });
      const created = await d.member.post(`${d.ws}/runs`, {
        approval_mode: 'rules',
        approval_rules: [{ tool: 'ls', verdict: 'allow' }],
        input: 'hello',
        provider: { kind: 'openai', max_rounds: maxRounds },
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

    async function tasksOf(runId: string) {
      const listed = await d!.member.get(`${d!.ws}/runs/${runId}/tasks`);
      if (listed.status !== 200) throw new Error(`listing tasks: ${JSON.stringify(listed.body)}`);
      return listed.body.tasks as {
        key: string;
        tool_name: string;
        state: string;
      }[];
    }

    it('ends a model that keeps calling tools failed max_rounds_exceeded, its extra calls unplanted', async () => {
      const runId = await startRun(() => 'ls', 2);
      for (let round = 1; round <= 2; round += 1) {
        const row = await waitFor(async () =>
          (await tasksOf(runId)).find((t) => t.state === 'runnable'),
        );
        const committed = await claimAndCommit(d!, runId, row.key, {
          outcome: 'succeeded',
          result: 'a b c',
        });
        expect(committed.status).toBe(200);
      }
      const run = await ended(runId);
      expect(run).toMatchObject({
        state: 'failed',
        round: 2,
        error: { code: 'max_rounds_exceeded' },
      });
      expect(run.error.detail).toContain('max_rounds');
      expect(model!.requests).toBe(3);
      expect(await tasksOf(runId)).toHaveLength(2);
    });

    it('takes a final answer given after the last round', async () => {
      const runId = await startRun((n) => (n <= 3 ? 'rm' : 'final'), 3);
      expect(await ended(runId)).toMatchObject({ state: 'completed', final_answer: 'done' });
      expect(model!.requests).toBe(4);
    });

    it('refuses a max_rounds below 1 or above the highest, and takes none at all', async () => {
      d = await deploy(backend);
      for (const max_rounds of [0, -1, 10_001, 1.5, '5']) {
        const refused = await d.member.post(`${d.ws}/runs`, {
          input: 'x',
          provider: { kind: 'openai', max_rounds },
        });
        expect(refused.status, JSON.stringify(max_rounds)).toBe(400);
      }
    });
  });
}
