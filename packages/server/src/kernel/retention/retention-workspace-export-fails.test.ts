import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { client, type Deployment, deploy } from '../../testing/harness.js';
import { SAY_HI } from '../../testing/retention-runs.js';
import { backends } from '../../testing/stores.js';
import { workspaceWithTokens } from '../../testing/workspace-tokens.js';

const DAY = 24 * 60 * 60 * 1000;
const root = mkdtempSync(join(tmpdir(), 'airlock-retention-one-workspace-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/**
 * Workspaces are pruned one after the other, in one pass. One whose export folder cannot be
 * written (a file in its place, a folder made read-only) fails its pruning, and the pass is
 * told so; the workspaces after it are still pruned, not held back for as long as it fails.
 */
describe.each(await backends())('a workspace whose export folder fails ($name)', (backend) => {
  let d: Deployment | undefined;
  afterEach(async () => {
    await d?.close();
    d = undefined;
  });

  it.skipIf(backend.skip !== null)(
    'fails its own pruning only; the other workspaces are pruned',
    async () => {
      let now = Date.now();
      const exportDir = mkdtempSync(join(root, 'exports-'));
      const deployed = await deploy(backend, {
        clock: () => now,
        retention: { exportDir, intervalMs: 10 * 365 * DAY },
      });
      d = deployed;
      const other = await workspaceWithTokens(deployed.airlock.store, 'other');
      const spaces = [
        { id: deployed.workspaceId, member: deployed.member, agent: deployed.agent },
        {
          id: other.workspaceId,
          member: client(deployed.url, other.tokens.member),
          agent: client(deployed.url, other.tokens.agent),
        },
      ].map((space) => ({ ...space, path: `/api/v1/workspaces/${space.id}` }));
      const ended: string[] = [];
      for (const space of spaces) {
        const put = await space.member.put(`${space.path}/retention`, {
          events_days: null,
          runs_days: 1,
          audit_days: null,
        });
        expect(put.status).toBe(200);
        const runId = (await space.agent.post(`${space.path}/runs`, SAY_HI)).body.id as string;
        const state = async () => (await space.member.get(`${space.path}/runs/${runId}`)).body;
        for (let i = 0; i < 200 && (await state()).state !== 'completed'; i++) {
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        expect((await state()).state).toBe('completed');
        ended.push(runId);
      }
      // The workspace pruned first (the pass goes by workspace id) cannot make its folder.
      const order = [...spaces.keys()].sort((a, b) => (spaces[a]!.id < spaces[b]!.id ? -1 : 1));
      const [broken, fine] = order.map((i) => ({ ...spaces[i]!, runId: ended[i]! }));
      writeFileSync(join(exportDir, broken!.id), '');
      now += 2 * DAY;

      const pruner = deployed.airlock.kernel.pruner!;
      await expect(pruner.pruneNow()).rejects.toThrow();
      expect(pruner.failure?.passes).toBe(1);
      const kept = await broken!.member.get(`${broken!.path}/runs/${broken!.runId}`);
      expect(kept.status).toBe(200);
      const pruned = await fine!.member.get(`${fine!.path}/runs/${fine!.runId}`);
      expect([pruned.status, pruned.body.error?.code]).toEqual([404, 'run_not_found']);

      // Once the folder can be made, the next pass prunes the held-back workspace too.
      rmSync(join(exportDir, broken!.id));
      await pruner.pruneNow();
      expect(pruner.failure).toBeNull();
      const gone = await broken!.member.get(`${broken!.path}/runs/${broken!.runId}`);
      expect(gone.status).toBe(404);
    },
    120_000,
  );
});
