import { afterEach, describe, expect, it } from 'vitest';
import { peekRun } from '../../store/runs.js';
import { gatedContext } from '../../testing/gated-store.js';
import { claimAndCommit, type Deployment, deploy, waitFor } from '../../testing/harness.js';
import { finalMessage, startModelServer, toolCallMessage } from '../../testing/model-server.js';
import { backends } from '../../testing/stores.js';
import { lockRun } from '../machines/run-state.js';
import { completeSummary, pendingSummary } from './compaction.js';
import { driveRun } from './run-loop.js';

/**
 * Two kernels sharing a store reach a run whose context needs a summary: one
 * reads the summary as pending, and before it leases the model turn another
 * kernel summarizes and lets the turn go. The first then holds the lease with
 * nothing to ask; it must let the turn go at once rather than keep the run
 * waiting out the whole lease (the model's timeout and 30 s more).
 */
for (const backend of await backends()) {
  describe.skipIf(backend.skip !== null)(`a summary taken meanwhile (${backend.name})`, () => {
    let d: Deployment | undefined;
    let model: Awaited<ReturnType<typeof startModelServer>> | undefined;
    afterEach(async () => {
      model?.close();
      await d?.close();
      d = model = undefined;
    });

    it('lets the model turn go when the summary it leased for was recorded by another kernel', async () => {
      // Two rounds of one call each; the third request (this kernel's summary) never answers.
      model = await startModelServer((n) =>
        n <= 2 ? toolCallMessage('deploy', `c${n}`) : n === 3 ? 'hang' : finalMessage(),
      );
      let offset = 0;
      d = await deploy(backend, {
        clock: () => Date.now() + offset,
        openai: { baseUrl: model.url, apiKey: 'sk-test', model: 'm', timeoutMs: 600_000 },
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
          return tasks.some((t: { key: string; state: string }) => t.key === key);
        });
        const committed = await claimAndCommit(d, runId, key, { outcome: 'succeeded' });
        expect(committed.status).toBe(200);
      }
      await waitFor(async () => model!.requests === 3, { what: 'the summary request' });
      // The kernel asking for the summary is as good as gone: its lease runs out.
      offset += 3_600_000;
      const ctx = d.airlock.kernel.context;
      const store = ctx.store;
      let units = 0;
      const other = gatedContext(ctx, {
        before: async () => {
          units += 1;
          // Between this kernel's read of the pending summary and its lease, another one records it.
          if (units !== 2) return;
          await store.transaction(async (tx) => {
            const run = await lockRun(tx, d!.workspaceId, runId);
            const row = await pendingSummary(tx, run);
            if (!row) throw new Error('no pending summary to record');
            run.model_lease_owner = null;
            run.model_lease_until = null;
            await completeSummary(ctx, tx, run, row, 'the summary');
          });
        },
      });
      await driveRun(other, runId);
      expect(units).toBeGreaterThanOrEqual(2);
      const run = await peekRun(store, runId);
      expect(run).toMatchObject({ state: 'running', phase: 'model', compactions: 1 });
      expect(run?.model_lease_owner).toBeNull();
    });
  });
}
