import { afterEach, describe, expect, it } from 'vitest';
import { claimAndCommit, type Deployment, deploy, waitFor } from '../../testing/harness.js';
import { finalMessage, startModelServer, toolCallMessage } from '../../testing/model-server.js';
import { backends } from '../../testing/stores.js';

/**
 * A summary replaces every round but the latest: one the model answered
 * blank would drop them all from what it reads next, with nothing in their
 * place. It fails the summarizer row instead, which holds the run for a person.
 */
for (const backend of await backends()) {
  describe.skipIf(backend.skip !== null)(`a blank summary (${backend.name})`, () => {
    let d: Deployment | undefined;
    let model: Awaited<ReturnType<typeof startModelServer>> | undefined;
    afterEach(async () => {
      model?.close();
      await d?.close();
      d = model = undefined;
    });

    it('fails the summarizer row summary_failed and keeps every round', async () => {
      // Two rounds of one call each, then the summary request, answered with no text.
      model = await startModelServer((n) =>
        n <= 2 ? toolCallMessage('deploy', `c${n}`) : n === 3 ? finalMessage('  ') : finalMessage(),
      );
      d = await deploy(backend, {
        openai: { baseUrl: model.url, apiKey: 'sk-test', model: 'm' },
      });
      const created = await d.member.post(`${d.ws}/runs`, {
        approval_mode: 'bypass',
        input: 'x'.repeat(300),
        context_limit_bytes: 256,
        provider: { kind: 'openai', tools: [{ name: 'deploy' }] },
      });
      expect(created.body).toMatchObject({ state: 'running' });
      const runId = created.body.id as string;
      for (const key of ['t1', 't2']) {
        await waitFor(async () => {
          const tasks = (await d!.member.get(`${d!.ws}/runs/${runId}/tasks`)).body.tasks;
          return tasks.some((t: { key: string }) => t.key === key);
        });
        const committed = await claimAndCommit(d, runId, key, { outcome: 'succeeded' });
        expect(committed.status).toBe(200);
      }
      const summarizer = await waitFor(async () => {
        const tasks = (await d!.member.get(`${d!.ws}/runs/${runId}/tasks`)).body.tasks;
        const row = tasks.find((t: { kind: string }) => t.kind === 'summary');
        return row && row.state !== 'runnable' ? row : null;
      });
      expect(summarizer).toMatchObject({
        state: 'failed',
        error: { code: 'summary_failed' },
      });
      const run = (await d.member.get(`${d.ws}/runs/${runId}`)).body;
      expect(run).toMatchObject({ state: 'running', compactions: 0 });
      // The failed row holds the run for a person (retry asks the model again).
      expect(run.attention).not.toBeNull();
      expect(model.requests).toBe(3);
    });
  });
}
