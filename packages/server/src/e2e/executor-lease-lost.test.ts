import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type Deployment, sharedKernels, waitFor } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const all = await backends();

/** A standalone run that calls `build` once, then ends. */
const buildOnce = {
  approval_mode: 'bypass',
  input: 'build it',
  provider: { kind: 'scripted', rounds: [{ tool_calls: [{ name: 'build' }] }, { final: 'built' }] },
};

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `lease_lost says what became of the row (${backend.name})`,
    () => {
      let d: Deployment;
      const kernels = sharedKernels();
      afterAll(() => kernels.close());
      afterEach(async () => {
        await d?.close();
      });

      const row = (runId: string, verb: 'claim' | 'heartbeat' | 'commit') =>
        `/executor_api/v1/runs/${runId}/tasks/t1/${verb}`;

      it('tells a commit retried after it landed, and a heartbeat after it, that this claim committed the row', async () => {
        d = await kernels.deploy(backend);
        const runId = (await d.agent.post(`${d.ws}/runs`, buildOnce)).body.id;
        const claim = await d.executor.post(row(runId, 'claim'), { lease_ms: 30_000 });
        expect(claim.status).toBe(200);
        const commit = { claim_id: claim.body.claim_id, outcome: 'succeeded', result: 'built' };
        expect((await d.executor.post(row(runId, 'commit'), commit)).status).toBe(200);

        const again = await d.executor.post(row(runId, 'commit'), commit);
        expect(again.status).toBe(409);
        expect(again.body.error).toMatchObject({
          code: 'lease_lost',
          claim: { task_state: 'succeeded', committed: true },
        });
        const beat = await d.executor.post(row(runId, 'heartbeat'), {
          claim_id: claim.body.claim_id,
        });
        expect(beat.status).toBe(409);
        expect(beat.body.error.claim).toEqual({ task_state: 'succeeded', committed: true });

        // tRPC carries the same body in its error's data.
        const viaTrpc = await fetch(`${d.url}/trpc/executor.commit`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${d.tokens.executor}`,
            'content-type': 'application/json',
          },
          body: JSON.stringify({ run_id: runId, task_key: 't1', ...commit }),
        });
        expect(viaTrpc.status).toBe(409);
        const answered = (await viaTrpc.json()) as {
          error: { data: { error: { code: string; claim?: unknown } } };
        };
        expect(answered.error.data.error).toMatchObject({
          code: 'lease_lost',
          claim: { task_state: 'succeeded', committed: true },
        });
      });

      it('tells a claim whose lease lapsed that it did not commit the row, whoever holds it now', async () => {
        d = await kernels.deploy(backend);
        const runId = (await d.agent.post(`${d.ws}/runs`, buildOnce)).body.id;
        const first = await d.executor.post(row(runId, 'claim'), { lease_ms: 1000 });
        expect(first.status).toBe(200);
        const second = await waitFor(async () => {
          const again = await d.executor.post(row(runId, 'claim'));
          return again.status === 200 ? again.body : null;
        });
        const stale = { claim_id: first.body.claim_id, outcome: 'succeeded', result: 'first' };

        const whileHeld = await d.executor.post(row(runId, 'commit'), stale);
        expect(whileHeld.status).toBe(409);
        expect(whileHeld.body.error).toMatchObject({
          code: 'lease_lost',
          claim: { task_state: 'claimed', committed: false },
        });

        const failure = { code: 'broken', detail: 'it broke' };
        const committed = await d.executor.post(row(runId, 'commit'), {
          claim_id: second.claim_id,
          outcome: 'failed',
          error: failure,
        });
        expect(committed.status).toBe(200);
        const afterCommit = await d.executor.post(row(runId, 'commit'), stale);
        expect(afterCommit.body.error.claim).toEqual({ task_state: 'failed', committed: false });
        const staleBeat = await d.executor.post(row(runId, 'heartbeat'), {
          claim_id: first.body.claim_id,
        });
        expect(staleBeat.body.error.claim).toEqual({ task_state: 'failed', committed: false });
        // The claim that did commit it hears so, failed as it committed it.
        const retried = await d.executor.post(row(runId, 'commit'), {
          claim_id: second.claim_id,
          outcome: 'failed',
          error: failure,
        });
        expect(retried.body.error.claim).toEqual({ task_state: 'failed', committed: true });
      });

      it('fails a call whose lease lapsed after its run ended outcome_unknown (it may have run), and tells its late commit it did not commit it', async () => {
        d = await kernels.deploy(backend);
        const runId = (await d.agent.post(`${d.ws}/runs`, buildOnce)).body.id;
        const claim = await d.executor.post(row(runId, 'claim'), { lease_ms: 1000 });
        expect(claim.status).toBe(200);
        // The run is stopped while the executor runs the call; the executor then dies.
        expect((await d.member.post(`${d.ws}/runs/${runId}/stop`)).status).toBe(200);
        const settled = await waitFor(async () => {
          const task = (await d.member.get(`${d.ws}/runs/${runId}/tasks/t1`)).body;
          return task.state === 'claimed' ? null : task;
        });
        expect(settled).toMatchObject({
          state: 'failed',
          error: { code: 'outcome_unknown', detail: expect.stringContaining('may have run') },
        });
        const events = (await d.member.get(`${d.ws}/runs/${runId}/events`)).body.events;
        expect(events.map((e: { type: string }) => e.type)).not.toContain('task.canceled');
        const late = await d.executor.post(row(runId, 'commit'), {
          claim_id: claim.body.claim_id,
          outcome: 'succeeded',
          result: 'built',
        });
        expect(late.status).toBe(409);
        expect(late.body.error).toMatchObject({
          code: 'lease_lost',
          claim: { task_state: 'failed', committed: false },
        });
      });
    },
  );
}
