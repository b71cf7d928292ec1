import { afterEach, describe, expect, it } from 'vitest';
import { type Deployment, deploy, waitFor } from '../../testing/harness.js';
import { backends } from '../../testing/stores.js';
import { fenceRestoredStore } from './restore-fence.js';

const all = await backends();

// biome-ignore lint/suspicious/noExplicitAny: tests read JSON answers loosely and assert on them.
type Loose = any;

async function task(d: Deployment, runId: string, key: string): Promise<Loose> {
  return (await d.member.get(`${d.ws}/runs/${runId}/tasks/${key}`)).body;
}

/** What the fence leaves alone and what it holds, beside the tool rows of e2e/restore-fence.test.ts. */
for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`fenceRestoredStore (${backend.name})`, () => {
    let d: Deployment;
    afterEach(async () => {
      await d?.close();
    });

    it('holds a granted hook row, whose retry runs it with its timeout afresh; leaves parks and ended runs', async () => {
      d = await deploy(backend);
      const hooked = await d.member.post(`${d.ws}/runs`, {
        approval_mode: 'bypass',
        input: 'go',
        lifecycle_hooks: { turn_start: { tool: 'on_turn', timeout_ms: 60_000 } },
        provider: { kind: 'scripted', rounds: [{ final: 'done' }] },
      });
      const hookedId = hooked.body.id as string;
      const parked = await d.member.post(`${d.ws}/runs`, {
        approval_mode: 'ask',
        input: 'go',
        provider: { kind: 'scripted', rounds: [{ tool_calls: [{ name: 'deploy' }] }] },
      });
      const parkedId = parked.body.id as string;
      const stopped = await d.member.post(`${d.ws}/runs`, {
        approval_mode: 'bypass',
        input: 'go',
        provider: { kind: 'scripted', rounds: [{ tool_calls: [{ name: 'deploy' }] }] },
      });
      const stoppedId = stopped.body.id as string;
      await waitFor(async () => (await task(d, parkedId, 't1')).state === 'needs_approval');
      await waitFor(async () => (await task(d, stoppedId, 't1')).state === 'runnable');
      expect((await d.member.post(`${d.ws}/runs/${stoppedId}/stop`)).status).toBe(200);
      const [hook] = (await d.member.get(`${d.ws}/runs/${hookedId}/tasks`)).body.tasks;
      expect(hook).toMatchObject({ kind: 'hook', state: 'runnable' });

      const fenced = await fenceRestoredStore(d.airlock.store);
      expect(fenced).toEqual([
        expect.objectContaining({ run_id: hookedId, key: hook.key, kind: 'hook', was: 'runnable' }),
      ]);
      expect(await task(d, hookedId, hook.key)).toMatchObject({
        state: 'failed',
        error: { code: 'outcome_unknown' },
      });
      expect((await d.member.get(`${d.ws}/runs/${hookedId}`)).body.attention).toEqual([
        { reason: 'failure_hold', blocked_task_keys: [hook.key] },
      ]);
      expect(await task(d, parkedId, 't1')).toMatchObject({ state: 'needs_approval' });
      expect(await task(d, stoppedId, 't1')).toMatchObject({ state: 'canceled' });
      expect(await fenceRestoredStore(d.airlock.store)).toEqual([]);

      const retried = await d.member.post(`${d.ws}/runs/${hookedId}/tasks/${hook.key}/retry`);
      expect(retried.body).toMatchObject({ state: 'runnable', error: null });
      expect(retried.body.deadline_at).toBeGreaterThan(Date.now() + 50_000);
      const claim = await d.executor.post(
        `/executor_api/v1/runs/${hookedId}/tasks/${hook.key}/claim`,
      );
      expect(claim.status).toBe(200);
      await d.executor.post(`/executor_api/v1/runs/${hookedId}/tasks/${hook.key}/commit`, {
        claim_id: claim.body.claim_id,
        outcome: 'succeeded',
        result: { structured_content: { continue: false } },
      });
      const run = await waitFor(async () => {
        const body = (await d.member.get(`${d.ws}/runs/${hookedId}`)).body;
        return body.state !== 'running' && body;
      });
      expect(run).toMatchObject({ state: 'completed', final_answer: 'done' });
    });
  });
}
