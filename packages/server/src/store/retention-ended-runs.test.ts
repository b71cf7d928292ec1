import { afterEach, describe, expect, it } from 'vitest';
import { type Deployment, deploy, waitFor } from '../testing/harness.js';
import { backends } from '../testing/stores.js';
import { rowCountsOfRuns } from './retention-ended-runs.js';

const available = (await backends()).filter((backend) => backend.skip === null);

/** A run whose one round asks for `calls` tool calls, each parked under `ask`. */
function parksMany(calls: number) {
  return {
    approval_mode: 'ask',
    input: 'deploy them',
    provider: {
      kind: 'scripted',
      rounds: [
        {
          tool_calls: Array.from({ length: calls }, (_, i) => ({ name: `deploy_${i}`, input: {} })),
        },
        { final: 'done' },
      ],
    },
  };
}

describe.each(available)(
  'the rows of ended runs the pruner sizes a batch by ($name)',
  (backend) => {
    let d: Deployment | undefined;
    afterEach(async () => {
      await d?.close();
      d = undefined;
    });

    /** Starts a run of `calls` parked calls, stops it once they wait, and answers its id. */
    async function stoppedRun(deployment: Deployment, calls: number): Promise<string> {
      const runId = (await deployment.agent.post(`${deployment.ws}/runs`, parksMany(calls))).body
        .id as string;
      await waitFor(
        async () =>
          (await deployment.member.get(`${deployment.ws}/runs/${runId}/tasks/t${calls}`)).body
            .state === 'needs_approval',
        { what: `the ${calls} calls of ${runId} to park` },
      );
      expect((await deployment.member.post(`${deployment.ws}/runs/${runId}/stop`)).status).toBe(
        200,
      );
      return runId;
    }

    it('counts each run’s rows (its task rows here), and none for a run not in the store', async () => {
      d = await deploy(backend);
      const one = await stoppedRun(d, 1);
      const three = await stoppedRun(d, 3);
      const counts = await rowCountsOfRuns(d.airlock.store, [one, three, 'run_not_there']);
      expect(Object.fromEntries(counts)).toEqual({ [one]: 1, [three]: 3, run_not_there: 0 });
      expect(await rowCountsOfRuns(d.airlock.store, [])).toEqual(new Map());
    });
  },
);
