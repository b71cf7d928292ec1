import { afterEach, describe, expect, it } from 'vitest';
import { type Deployment, deploy, waitFor } from '../testing/harness.js';
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
    `an executor's claim that lapses after its run ended (${backend.name})`,
    () => {
      let d: Deployment;
      afterEach(async () => {
        await d?.close();
      });

      it('fails the call outcome_unknown, since it may have run, and takes no late commit', async () => {
        d = await deploy(backend);
        const runId = (await d.agent.post(`${d.ws}/runs`, buildOnce)).body.id;
        const path = (verb: string) => `/executor_api/v1/runs/${runId}/tasks/t1/${verb}`;
        const claim = await d.executor.post(path('claim'), { lease_ms: 1000 });
        expect(claim.status).toBe(200);
        // The run is stopped while the executor runs the call; the executor then dies.
        expect((await d.member.post(`${d.ws}/runs/${runId}/stop`)).status).toBe(200);
        const row = await waitFor(async () => {
          const task = (await d.member.get(`${d.ws}/runs/${runId}/tasks/t1`)).body;
          return task.state === 'claimed' ? null : task;
        });
        expect(row).toMatchObject({
          state: 'failed',
          error: { code: 'outcome_unknown', detail: expect.stringContaining('may have run') },
        });
        const events = (await d.member.get(`${d.ws}/runs/${runId}/events`)).body.events;
        expect(events.map((e: { type: string }) => e.type)).not.toContain('task.canceled');
        const late = await d.executor.post(path('commit'), {
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
