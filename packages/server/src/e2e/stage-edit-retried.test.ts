import { afterEach, describe, expect, it } from 'vitest';
import { addMember, type Deployment, deploy, waitFor } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const all = await backends();
const DAY = 24 * 60 * 60 * 1000;

/*
 * A call a person edited keeps its mark when a retry sends it through the approval stage
 * again (its park expired): the input it runs with is still the person's edit, so the model
 * reads that a person edited it (and a hooked agent is handed the edit to run).
 */
for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`an edited call retried (${backend.name})`, () => {
    let d: Deployment;
    afterEach(async () => {
      await d?.close();
    });

    it('an edited park that expired and was retried still reads as edited when it runs', async () => {
      let now = Date.now();
      d = await deploy(backend, { clock: () => now });
      const [ana, bo] = [await addMember(d, 'Ana'), await addMember(d, 'Bo')];
      const policy = { rules: [{ actions: ['destructive', 'delete'], required: 2 }] };
      expect((await d.member.put(`${d.ws}/approval_policy`, { policy })).status).toBe(200);
      const created = await d.agent.post(`${d.ws}/runs`, {
        approval_mode: 'ask',
        input: 'clean up',
        provider: {
          kind: 'scripted',
          rounds: [
            {
              tool_calls: [
                { name: 'bash', input: { command: 'rm -rf build' }, on_failure: 'hold' },
              ],
            },
            { final: 'done' },
          ],
        },
      });
      const runId = created.body.id as string;
      const task = `${d.ws}/runs/${runId}/tasks/t1`;
      await waitFor(async () => (await d.member.get(task)).body.state === 'needs_approval');
      const edited = await ana.client.post(`${task}/approve`, {
        tool_input: { command: 'rm -rf build/tmp' },
      });
      expect(edited.body).toMatchObject({ state: 'needs_approval' });
      expect(edited.body.decision.edited_by).toBe(`member:${ana.id}`);

      now += DAY + 60_000;
      await waitFor(async () => (await d.member.get(task)).body.state === 'timed_out');
      const retried = await bo.client.post(`${task}/retry`, {});
      expect(retried.body.state).toBe('needs_approval');
      expect(retried.body.tool_input).toEqual({ command: 'rm -rf build/tmp' });
      expect(retried.body.decision.edited_by).toBe(`member:${ana.id}`);

      expect((await ana.client.post(`${task}/approve`, {})).body.state).toBe('needs_approval');
      expect((await bo.client.post(`${task}/approve`, {})).body.state).toBe('runnable');
      const claim = await d.executor.post(`/executor_api/v1/runs/${runId}/tasks/t1/claim`, {});
      expect(claim.body.task.tool_input).toEqual({ command: 'rm -rf build/tmp' });
      await d.executor.post(`/executor_api/v1/runs/${runId}/tasks/t1/commit`, {
        claim_id: claim.body.claim_id,
        outcome: 'succeeded',
        result: 'removed build/tmp',
      });
      await waitFor(
        async () => (await d.member.get(`${d.ws}/runs/${runId}`)).body.state === 'completed',
      );
      const events = (await d.member.get(`${d.ws}/runs/${runId}/events`)).body.events as {
        type: string;
        data: Record<string, unknown>;
      }[];
      const fed = events
        .filter((e) => e.type === 'run.model_read')
        .flatMap((e) => e.data.fed as { task_key: string; content: string }[])
        .find((f) => f.task_key === 't1')?.content;
      expect(fed).toContain('A person edited this call before approving it');
    });
  });
}
