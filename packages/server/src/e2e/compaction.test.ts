import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type Deployment, sharedKernels, waitFor } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const all = await backends();

// biome-ignore lint/suspicious/noExplicitAny: tests read JSON answers loosely and assert on them.
type Loose = any;

const hooks = {
  pre_compact: { tool: 'on_compact', timeout_ms: 5000 },
  post_compact: { tool: 'on_compact', timeout_ms: 5000 },
};

/** Serves every tool and hook row of a run over REST until it ends; returns the hook inputs. */
async function serveUntilDone(d: Deployment, runId: string) {
  const hookInputs: Loose[] = [];
  const run = await waitFor(
    async () => {
      const inbox = await d.executor.get('/executor_api/v1/inbox');
      for (const item of inbox.body.items) {
        if (item.run_id !== runId || !['tool', 'hook'].includes(item.kind)) continue;
        const claim = await d.executor.post(
          `/executor_api/v1/runs/${runId}/tasks/${item.task_key}/claim`,
        );
        if (claim.status !== 200) continue;
        if (item.kind === 'hook') hookInputs.push(item.tool_input);
        await d.executor.post(`/executor_api/v1/runs/${runId}/tasks/${item.task_key}/commit`, {
          claim_id: claim.body.claim_id,
          outcome: 'succeeded',
          result:
            item.kind === 'hook' ? { structured_content: { continue: false } } : 'x'.repeat(400),
        });
      }
      const r = (await d.member.get(`${d.ws}/runs/${runId}`)).body;
      return r.state !== 'running' && r;
    },
    { what: `run ${runId} to end` },
  );
  return { run, hookInputs };
}

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`compaction (${backend.name})`, () => {
    let d: Deployment;
    const kernels = sharedKernels();
    afterAll(() => kernels.close());
    afterEach(async () => {
      await d?.close();
    });

    for (const limit of [{ context_limit_bytes: 600 }, { context_limit_tokens: 150 }] as const) {
      it(`past ${Object.keys(limit)[0]}, a summarizer row replaces older rounds between pre_compact and post_compact`, async () => {
        d = await kernels.deploy(backend);
        const created = await d.member.post(`${d.ws}/runs`, {
          approval_mode: 'bypass',
          input: 'read two files',
          lifecycle_hooks: hooks,
          ...limit,
          provider: {
            kind: 'scripted',
            summary: 'Read file a; its content was 400 x.',
            rounds: [
              { tool_calls: [{ name: 'read', input: { path: 'a' } }] },
              { tool_calls: [{ name: 'read', input: { path: 'b' } }] },
              { final: 'both read', expect: 'xxxx' },
            ],
          },
        });
        const runId = created.body.id;
        const { run, hookInputs } = await serveUntilDone(d, runId);
        expect(run).toMatchObject({
          state: 'completed',
          final_answer: 'both read',
          compactions: 1,
        });
        expect(hookInputs.map((i) => i.event)).toEqual(['pre_compact', 'post_compact']);
        const [pre] = hookInputs;
        const trigger = Object.keys(limit)[0];
        expect(pre).toMatchObject({ compaction_trigger: trigger, run_public_id: runId });
        expect(pre.overshoot_bytes).toBeGreaterThanOrEqual(
          trigger === 'context_limit_bytes' ? 1 : 0,
        );
        if (trigger === 'context_limit_tokens') expect(pre.overshoot_tokens).toBeGreaterThan(0);
        else expect(pre.overshoot_tokens).toBeUndefined();
        const tasks = (await d.member.get(`${d.ws}/runs/${runId}/tasks`)).body.tasks;
        const summary = tasks.find((t: Loose) => t.kind === 'summary');
        expect(summary).toMatchObject({
          origin: 'kernel',
          state: 'succeeded',
          result: { summary: 'Read file a; its content was 400 x.' },
        });
        const events = (await d.member.get(`${d.ws}/runs/${runId}/events?limit=1000`)).body.events;
        const compacted = events.find((e: Loose) => e.type === 'run.compacted');
        expect(compacted.data).toMatchObject({ compaction: 1, through_round: 1 });
        // The summarizer is the kernel's: never on an executor's inbox, never claimable.
        const claim = await d.executor.post(
          `/executor_api/v1/runs/${runId}/tasks/${summary.key}/claim`,
        );
        expect(claim.body.error.code).toBe('not_claimable_kind');
      });
    }

    it('under the limit nothing is compacted and no compaction hook runs', async () => {
      d = await kernels.deploy(backend);
      const created = await d.member.post(`${d.ws}/runs`, {
        approval_mode: 'bypass',
        input: 'small',
        lifecycle_hooks: hooks,
        context_limit_bytes: 100_000,
        provider: {
          kind: 'scripted',
          rounds: [
            { tool_calls: [{ name: 'read' }] },
            { tool_calls: [{ name: 'read' }] },
            { final: 'ok' },
          ],
        },
      });
      const { run, hookInputs } = await serveUntilDone(d, created.body.id);
      expect(run).toMatchObject({ state: 'completed', compactions: 0 });
      expect(hookInputs).toEqual([]);
    });
  });
}
