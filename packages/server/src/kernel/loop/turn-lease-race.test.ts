import { afterEach, describe, expect, it } from 'vitest';
import { peekRun } from '../../store/runs.js';
import { gatedContext } from '../../testing/gated-store.js';
import { claimAndCommit, type Deployment, deploy, waitFor } from '../../testing/harness.js';
import { finalMessage, startModelServer, toolCallMessage } from '../../testing/model-server.js';
import { backends } from '../../testing/stores.js';
import { leaseModel, touchRun } from '../machines/run-machine.js';
import { lockRun } from '../machines/run-state.js';
import { driveRun } from './run-loop.js';

/**
 * Two kernels sharing a store drive one run. A kernel checks what comes
 * before the run's next model request (a pending answer's stop, turn_start,
 * compaction) and then asks the model: nobody may take the turn in between,
 * or it could finish a whole round (here: leave an answer pending) that the
 * first kernel then asks the model past, unchecked.
 */
for (const backend of await backends()) {
  describe.skipIf(backend.skip !== null)(
    `the model turn after its checks (${backend.name})`,
    () => {
      let d: Deployment | undefined;
      let model: Awaited<ReturnType<typeof startModelServer>> | undefined;
      afterEach(async () => {
        model?.close();
        await d?.close();
        d = model = undefined;
      });

      it('is leased in the unit that checked it, so no other kernel takes a round in between', async () => {
        // Round one calls deploy; the kernel's own second request never answers; the third is final.
        model = await startModelServer((n) =>
          n === 1 ? toolCallMessage('deploy', 'c1') : n === 2 ? 'hang' : finalMessage('asked'),
        );
        let offset = 0;
        d = await deploy(backend, {
          clock: () => Date.now() + offset,
          openai: { baseUrl: model.url, apiKey: 'sk-test', model: 'm', timeoutMs: 600_000 },
        });
        const created = await d.member.post(`${d.ws}/runs`, {
          approval_mode: 'bypass',
          input: 'hello',
          provider: { kind: 'openai', tools: [{ name: 'deploy' }] },
        });
        expect(created.body).toMatchObject({ state: 'running' });
        const runId = created.body.id as string;
        await waitFor(async () => {
          const tasks = (await d!.member.get(`${d!.ws}/runs/${runId}/tasks`)).body.tasks;
          return tasks.some((t: { key: string }) => t.key === 't1');
        });
        expect((await claimAndCommit(d, runId, 't1', { outcome: 'succeeded' })).status).toBe(200);
        await waitFor(async () => model!.requests === 2, { what: 'the second model request' });
        // The kernel asking the second round is as good as gone: its lease runs out.
        offset += 3_600_000;
        const ctx = d.airlock.kernel.context;
        const store = ctx.store;
        let units = 0;
        let otherTookTheTurn = false;
        const drive = gatedContext(ctx, {
          before: async () => {
            units += 1;
            if (units !== 2) return;
            // Another kernel tries to take the turn once this one's checks have committed: with the
            // turn free it would finish a round, here one whose final answer waits to be delivered.
            await store.transaction(async (tx) => {
              const leased = await leaseModel(tx, { runId, owner: 'kernel-b', forMs: 60_000 });
              if (!leased) return;
              otherTookTheTurn = true;
              const run = await lockRun(tx, d!.workspaceId, runId);
              run.pending_answer = 'from kernel b';
              run.model_lease_owner = null;
              run.model_lease_until = null;
              touchRun(tx, run);
            });
          },
        });
        await driveRun(drive, runId);
        expect(units).toBeGreaterThanOrEqual(2);
        expect(otherTookTheTurn).toBe(false);
        expect(model.requests).toBe(3);
        const run = await peekRun(store, runId);
        expect(run).toMatchObject({ state: 'completed', final_answer: 'asked' });
      });
    },
  );
}
