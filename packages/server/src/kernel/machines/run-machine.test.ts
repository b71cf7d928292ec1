import { afterEach, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from '../../testing/harness.js';
import { backends } from '../../testing/stores.js';
import { touchRun } from './run-machine.js';
import { lockRun } from './run-state.js';

const all = await backends();

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`a run row's write (${backend.name})`, () => {
    let deployment: Deployment | undefined;
    afterEach(async () => {
      await deployment?.close();
      deployment = undefined;
    });

    /** A running run whose one call parks, so nothing moves it while the test writes. */
    async function parkedRun(d: Deployment): Promise<string> {
      const created = await d.agent.post(`${d.ws}/runs`, {
        approval_mode: 'ask',
        input: 'x',
        provider: { kind: 'scripted', rounds: [{ tool_calls: [{ name: 'deploy' }] }] },
      });
      expect(created.status).toBe(201);
      return created.body.id;
    }

    const storedSummary = async (d: Deployment, runId: string) =>
      (
        await d.airlock.store.db
          .selectFrom('runs')
          .select('summary')
          .where('id', '=', runId)
          .executeTakeFirstOrThrow()
      ).summary;

    it('sets only what changed since the unit read it, and keeps every other column', async () => {
      deployment = await deploy(backend);
      const d = deployment;
      const runId = await parkedRun(d);
      const before = await lockRunOutside(d, runId);
      await d.airlock.store.transaction(async (tx) => {
        const run = await lockRun(tx, d.workspaceId, runId);
        run.summary = 'changed';
        touchRun(tx, run);
      });
      const after = await lockRunOutside(d, runId);
      expect(after.summary).toBe('changed');
      expect({ ...after, summary: null, updated_at: 0 }).toEqual({
        ...before,
        summary: null,
        updated_at: 0,
      });
    });

    it('writes every column of a row kept from an earlier unit of work', async () => {
      deployment = await deploy(backend);
      const d = deployment;
      const runId = await parkedRun(d);
      const kept = await d.airlock.store.transaction(async (tx) => {
        const run = await lockRun(tx, d.workspaceId, runId);
        run.summary = 'first';
        touchRun(tx, run);
        return run;
      });
      expect(await storedSummary(d, runId)).toBe('first');
      // Back to the value the first unit read: only a full write puts it in the store.
      await d.airlock.store.transaction(async (tx) => {
        kept.summary = null;
        touchRun(tx, kept);
      });
      expect(await storedSummary(d, runId)).toBeNull();
    });
  });
}

/** The run row as stored, read in a unit of work of its own. */
function lockRunOutside(d: Deployment, runId: string) {
  return d.airlock.store.transaction((tx) => lockRun(tx, d.workspaceId, runId));
}
