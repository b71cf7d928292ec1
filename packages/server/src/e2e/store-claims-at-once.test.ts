import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Deployment, deploy, waitFor } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const all = await backends();

/**
 * Executors claiming at the same moment each get a row while rows wait. On
 * PostgreSQL a claim locked its whole page of candidates (sixteen rows), so
 * the claims made meanwhile skipped them all and answered null: of eight
 * claims at once for eight waiting rows, one or two got work.
 */
for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`claims made at once (${backend.name})`, () => {
    let d: Deployment;
    beforeAll(async () => {
      d = await deploy(backend);
    });
    afterAll(async () => {
      await d?.close();
    });

    /** Starts `count` bypass runs of one call each; resolves once every row is runnable. */
    async function waitingRows(count: number): Promise<string[]> {
      const runs = await Promise.all(
        Array.from({ length: count }, async () => {
          const started = await d.member.post(`${d.ws}/runs`, {
            approval_mode: 'bypass',
            provider: {
              kind: 'scripted',
              rounds: [{ tool_calls: [{ name: 'bash', input: {} }] }, { final: 'done' }],
            },
          });
          expect(started.status).toBe(201);
          return started.body.id as string;
        }),
      );
      await waitFor(async () => {
        const states = await Promise.all(
          runs.map(async (id) => (await d.member.get(`${d.ws}/runs/${id}/tasks/t1`)).body.state),
        );
        return states.every((state) => state === 'runnable');
      });
      return runs;
    }

    it('hands each of eight claims at once one of eight waiting rows', async () => {
      for (let round = 0; round < 3; round += 1) {
        const runs = await waitingRows(8);
        const answers = await Promise.all(
          runs.map(() => d.executor.post('/executor_api/v1/claim', { lease_ms: 60_000 })),
        );
        expect(answers.map((answer) => answer.status)).toEqual(runs.map(() => 200));
        const claimed = answers.map((answer) => answer.body.claim?.task.run_id as string);
        expect(claimed.filter(Boolean).sort()).toEqual([...runs].sort());
      }
    });
  });
}
