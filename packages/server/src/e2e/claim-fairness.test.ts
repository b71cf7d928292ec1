import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type Deployment, sharedKernels, waitFor } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const all = await backends();

/**
 * A claim finds a runnable row wherever it is in the inbox: rows another
 * claim holds back (a run's sequential tool, or several mutations of one
 * file) never hide the work of other runs behind them.
 */

const WRITE = {
  name: 'write_file',
  input_schema: { type: 'object' },
  risk_traits: ['write'],
  targets: [{ pointer: '/path', kind: 'path' }],
};
const DEPLOY = {
  name: 'deploy',
  input_schema: { type: 'object' },
  risk_traits: ['read'],
  execution: 'sequential',
};

type Row = { key: string; state: string; run_id: string };

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`claims past held rows (${backend.name})`, () => {
    let d: Deployment;
    const kernels = sharedKernels();
    afterAll(() => kernels.close());
    afterEach(async () => {
      await d?.close();
    });

    /** Starts a bypass run of one round of calls; resolves once all of them are runnable. */
    async function runOf(calls: unknown[], manifest?: unknown[]): Promise<string> {
      const started = await d.member.post(`${d.ws}/runs`, {
        approval_mode: 'bypass',
        ...(manifest ? { tool_manifest: manifest, project_root: '/repo' } : {}),
        provider: { kind: 'scripted', rounds: [{ tool_calls: calls }, { final: 'done' }] },
      });
      expect(started.status).toBe(201);
      const runId = started.body.id as string;
      await waitFor(async () => {
        const rows = (await d.member.get(`${d.ws}/runs/${runId}/tasks`)).body.tasks as Row[];
        return rows.length === calls.length && rows.every((r) => r.state === 'runnable');
      });
      return runId;
    }

    const claimNext = async (body: object = {}) => {
      const answer = await d.executor.post('/executor_api/v1/claim', { lease_ms: 60_000, ...body });
      expect(answer.status).toBe(200);
      return answer.body.claim as { claim_id: string; task: Row & { tool_name: string } } | null;
    };

    it("hands out another run's row while one run's sequential chain waits", async () => {
      d = await kernels.deploy(backend);
      const chain = Array.from({ length: 40 }, (_, i) => ({ name: 'deploy', input: { step: i } }));
      const a = await runOf(chain, [DEPLOY]);
      const first = await claimNext();
      expect(first?.task).toMatchObject({ run_id: a, key: 't1' });
      const b = await runOf([{ name: 'bash', input: { command: 'ls' } }]);

      // The chain's waiting rows are no work to claim now: the inbox shows B's row, not them.
      const inbox = (await d.executor.get('/executor_api/v1/inbox?limit=5')).body.items as {
        run_id: string;
      }[];
      expect(inbox.map((item) => item.run_id)).toEqual([b]);

      const filtered = await claimNext({ tool_names: ['deploy', 'bash'] });
      expect(filtered?.task).toMatchObject({ run_id: b, tool_name: 'bash' });
      expect(await claimNext()).toBeNull();

      // Once the chain's claim commits, its next row is the oldest claimable again.
      const committed = await d.executor.post(`/executor_api/v1/runs/${a}/tasks/t1/commit`, {
        claim_id: first?.claim_id,
        outcome: 'succeeded',
        result: 'ok',
      });
      expect(committed.status).toBe(200);
      expect((await claimNext())?.task).toMatchObject({ run_id: a, key: 't2' });
    });

    it('pages on past rows a path lock holds back', async () => {
      d = await kernels.deploy(backend);
      // More mutations of one file than one read of candidates takes (16).
      const writes = Array.from({ length: 30 }, (_, i) => ({
        name: 'write_file',
        input: { path: 'src/a.ts', content: String(i) },
      }));
      const a = await runOf(writes, [WRITE]);
      const first = await claimNext();
      expect(first?.task).toMatchObject({ run_id: a, key: 't1' });
      const b = await runOf([{ name: 'bash', input: { command: 'ls' } }]);
      expect((await claimNext())?.task).toMatchObject({ run_id: b });
      expect(await claimNext()).toBeNull();
    });
  });
}
