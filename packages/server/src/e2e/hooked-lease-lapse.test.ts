import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type Deployment, sharedKernels, waitFor } from '../testing/harness.js';
import { bashPostTool, bashPreTool, postHookEvent } from '../testing/hooked-events.js';
import { backends } from '../testing/stores.js';

const all = await backends();
const PROFILE = '/agent_api/v1/profile/configuration';

/**
 * A hooked agent's claim on its own call that lapses without a post_tool
 * report: the agent may have run the call, so its row fails
 * `outcome_unknown` and is never granted again. A person's approval is
 * spent once: the next identical call crosses the approval stage afresh.
 * The agent's report, should it come after all, records what ran.
 */

type Row = { key: string; state: string; error: { code: string; detail: string } | null };

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`a hooked claim that lapses (${backend.name})`, () => {
    let d: Deployment;
    const kernels = sharedKernels();
    afterAll(() => kernels.close());
    afterEach(async () => {
      await d?.close();
    });

    const event = (body: Record<string, unknown>) => postHookEvent(d, body);
    const tasksOf = async (runId: string) =>
      (await d.member.get(`${d.ws}/runs/${runId}/tasks`)).body.tasks as Row[];
    const rowOf = async (runId: string, key: string) =>
      (await tasksOf(runId)).find((row) => row.key === key);

    it('fails the row outcome_unknown, and the approval is not spent twice', async () => {
      d = await kernels.deploy(backend, { maxLeaseMs: 300 });
      await d.agent.put(PROFILE, { approval_mode: 'ask', approval_rules: [] });
      await event({ event: 'session_start' });
      const parked = await event(bashPreTool('make deploy', 'tu-1'));
      expect(parked.body).toMatchObject({ verdict: 'wait', task_state: 'needs_approval' });
      const runId = parked.body.run_id as string;
      const approved = await d.member.post(`${d.ws}/runs/${runId}/tasks/t1/approve`, {});
      expect(approved.body.state).toBe('runnable');
      const granted = await event(bashPreTool('make deploy', 'tu-2'));
      expect(granted.body).toMatchObject({ verdict: 'allow', task_key: 't1' });

      await waitFor(async () => (await rowOf(runId, 't1'))?.state !== 'claimed', {
        what: 'the lease to lapse',
      });
      const lapsed = await rowOf(runId, 't1');
      expect(lapsed?.state).toBe('failed');
      expect(lapsed?.error?.code).toBe('outcome_unknown');

      // Asked again under the call id it was granted to: refused, not granted again.
      const same = await event(bashPreTool('make deploy', 'tu-2'));
      expect(same.body).toMatchObject({ verdict: 'deny', task_key: 't1', task_state: 'failed' });
      // The next identical call crosses the stage afresh and parks for a person again.
      const next = await event(bashPreTool('make deploy', 'tu-3'));
      expect(next.body).toMatchObject({
        verdict: 'wait',
        task_key: 't2',
        task_state: 'needs_approval',
      });
      expect((await tasksOf(runId)).map((row) => [row.key, row.state])).toEqual([
        ['t1', 'failed'],
        ['t2', 'needs_approval'],
      ]);
    });

    it('records a report that comes after the lapse, and grants nothing from it', async () => {
      d = await kernels.deploy(backend, { maxLeaseMs: 300 });
      await d.agent.put(PROFILE, { approval_mode: 'bypass', approval_rules: [] });
      await event({ event: 'session_start' });
      const granted = await event(bashPreTool('make build', 'tu-1'));
      expect(granted.body).toMatchObject({ verdict: 'allow', task_state: 'claimed' });
      const runId = granted.body.run_id as string;
      await waitFor(async () => (await rowOf(runId, 't1'))?.state !== 'claimed', {
        what: 'the lease to lapse',
      });
      expect((await rowOf(runId, 't1'))?.error?.code).toBe('outcome_unknown');
      const late = await event(bashPostTool('make build', 'tu-1', 'failed', 'no rule to make'));
      expect(late.body).toMatchObject({ verdict: 'ack', task_key: 't1', task_state: 'failed' });
      expect((await rowOf(runId, 't1'))?.error).toEqual({
        code: 'tool_failed',
        detail: 'no rule to make',
      });
      // The same call asked about again is refused: it ran.
      const again = await event(bashPreTool('make build', 'tu-1'));
      expect(again.body).toMatchObject({ verdict: 'deny', task_key: 't1' });
    });
  });
}
