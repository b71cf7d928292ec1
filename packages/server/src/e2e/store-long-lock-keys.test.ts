import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Deployment, deploy, waitFor } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const all = await backends();

/**
 * A claim lock keyed by a long path (a call writing to a file whose path is
 * a few kilobytes long) is kept like any other. PostgreSQL refused the lock
 * row's index entry, so every claim of the workspace answered 500 while that
 * row was the oldest runnable one, other runs' rows included.
 */

const WRITE = {
  name: 'write_file',
  input_schema: { type: 'object' },
  risk_traits: ['write'],
  targets: [{ pointer: '/path', kind: 'path' }],
};

/** A path of incompressible characters, longer than PostgreSQL indexes (about 2.7 kB). */
const LONG_PATH = `src/${randomBytes(3000).toString('base64url').slice(0, 3000)}.ts`;

type Claim = { claim_id: string; task: { run_id: string; key: string } } | null;

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`claim locks of long paths (${backend.name})`, () => {
    let d: Deployment;
    beforeAll(async () => {
      d = await deploy(backend);
    });
    afterAll(async () => {
      await d?.close();
    });

    /** Starts a bypass run of one call; resolves once its row is runnable. */
    async function runOf(call: object, manifest?: object[]): Promise<string> {
      const started = await d.member.post(`${d.ws}/runs`, {
        approval_mode: 'bypass',
        ...(manifest ? { tool_manifest: manifest, project_root: '/repo' } : {}),
        provider: { kind: 'scripted', rounds: [{ tool_calls: [call] }, { final: 'done' }] },
      });
      expect(started.status).toBe(201);
      const runId = started.body.id as string;
      await waitFor(
        async () =>
          (await d.member.get(`${d.ws}/runs/${runId}/tasks/t1`)).body.state === 'runnable',
      );
      return runId;
    }

    async function claimNext(): Promise<Claim> {
      const answer = await d.executor.post('/executor_api/v1/claim', { lease_ms: 60_000 });
      expect(answer.status).toBe(200);
      return answer.body.claim as Claim;
    }

    it('claims a write to a long path, and holds back a second write to it', async () => {
      const write = { name: 'write_file', input: { path: LONG_PATH } };
      const first = await runOf(write, [WRITE]);
      const second = await runOf(write, [WRITE]);
      const other = await runOf({ name: 'bash', input: { command: 'ls' } });

      const claimed = await claimNext();
      expect(claimed?.task).toMatchObject({ run_id: first, key: 't1' });
      // The second write to the same file waits for the first; the other run's row does not.
      expect((await claimNext())?.task).toMatchObject({ run_id: other });
      expect(await claimNext()).toBeNull();

      const committed = await d.executor.post(`/executor_api/v1/runs/${first}/tasks/t1/commit`, {
        claim_id: claimed?.claim_id,
        outcome: 'succeeded',
        result: 'ok',
      });
      expect(committed.status).toBe(200);
      expect((await claimNext())?.task).toMatchObject({ run_id: second, key: 't1' });
    });
  });
}
