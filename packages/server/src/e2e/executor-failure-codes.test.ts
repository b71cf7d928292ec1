import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type Deployment, sharedKernels, waitFor } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const all = await backends();

/**
 * An executor reports what happened to a call; it never decides one. A
 * failure code the kernel keeps for a person's decision or a clock
 * (approval_denied, approval_expired, question_expired, ...) is recorded as
 * tool_failed with the executor's words: the row holds its run like any
 * failure, and a retry runs the call again, never parks it or asks.
 */

type Row = {
  key: string;
  state: string;
  result: unknown;
  error: { code: string; detail: string } | null;
};

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`executor failure codes (${backend.name})`, () => {
    let d: Deployment;
    const kernels = sharedKernels();
    afterAll(() => kernels.close());
    afterEach(async () => {
      await d?.close();
    });

    /** A run of one on_failure hold call, claimed and committed as failed with `code`. */
    async function failWith(code: string) {
      const started = await d.member.post(`${d.ws}/runs`, {
        approval_mode: 'bypass',
        provider: {
          kind: 'scripted',
          rounds: [
            { tool_calls: [{ name: 'deploy', input: { env: 'prod' }, on_failure: 'hold' }] },
            { final: 'deployed' },
          ],
        },
      });
      const runId = started.body.id as string;
      const tasks = async () =>
        (await d.member.get(`${d.ws}/runs/${runId}/tasks`)).body.tasks as Row[];
      await waitFor(async () => (await tasks())[0]?.state === 'runnable');
      const claim = await d.executor.post(`/executor_api/v1/runs/${runId}/tasks/t1/claim`);
      const commit = await d.executor.post(`/executor_api/v1/runs/${runId}/tasks/t1/commit`, {
        claim_id: claim.body.claim_id,
        outcome: 'failed',
        result: { stdout: 'half deployed' },
        error: { code, detail: 'the target refused' },
      });
      expect(commit.status).toBe(200);
      const run = await waitFor(async () => {
        const view = (await d.member.get(`${d.ws}/runs/${runId}`)).body;
        return view.attention?.some((a: { reason: string }) => a.reason === 'failure_hold')
          ? view
          : null;
      });
      expect(run.state).toBe('running');
      return { runId, row: (await tasks())[0] as Row };
    }

    for (const code of ['approval_denied', 'approval_expired', 'question_expired', 'declined']) {
      it(`records ${code} from an executor as tool_failed: the run holds, a retry runs the call`, async () => {
        d = await kernels.deploy(backend);
        const { runId, row } = await failWith(code);
        expect(row).toMatchObject({
          state: 'failed',
          result: { stdout: 'half deployed' },
          error: {
            code: 'tool_failed',
            detail: `the executor reported ${code}: the target refused`,
          },
        });
        const retried = await d.member.post(`${d.ws}/runs/${runId}/tasks/t1/retry`, {});
        expect(retried.status).toBe(200);
        expect(retried.body.state).toBe('runnable');
      });
    }

    it("keeps an executor's own code as it sent it", async () => {
      d = await kernels.deploy(backend);
      const { row } = await failWith('not_found');
      expect(row.error).toEqual({ code: 'not_found', detail: 'the target refused' });
    });
  });
}
