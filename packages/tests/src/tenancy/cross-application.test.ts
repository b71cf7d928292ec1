import type { OperationName } from '@airlock/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestKernel, type TestKernel, type TestWorkspace } from '../support/kernel.js';
import { kernelStores } from '../support/postgres.js';
import { PROBES } from './operation-matrix.js';
import { probeFindings, snapshotOf } from './probe-runner.js';
import { caller, plantThings, type WorkspaceThings } from './two-workspaces.js';

const MARK_ONE = 'onemark4c';
const MARK_TWO = 'twomark8d';

/** The second agent application of a workspace, with an agent and an executor token of it. */
async function secondApplication(kernel: TestKernel): Promise<TestWorkspace> {
  const { workspace } = kernel;
  const member = caller(kernel.url, workspace.tokens.member);
  const app = await member('agentApplications.create', {
    workspace_id: workspace.id,
    name: 'two',
  });
  const appId = String((app.result as { id: string }).id);
  const token = async (kind: 'agent' | 'executor') =>
    String(
      (
        (
          await member('credentials.create', {
            workspace_id: workspace.id,
            kind,
            agent_application_id: appId,
          })
        ).result as { token: string }
      ).token,
    );
  return {
    id: workspace.id,
    appId,
    tokens: {
      agent: await token('agent'),
      executor: await token('executor'),
      member: workspace.tokens.member,
    },
  };
}

/*
 * One workspace, two agent applications, each with its agent's runs in every
 * state: every operation is called with application two's agent and executor
 * tokens (REST and tRPC) naming application one's things, and must answer as
 * for made-up ids, with nothing of application one's in the answer, and leave
 * its rows as they were. Members act on the whole workspace by design, so
 * only the fenced planes are probed.
 */
for (const store of await kernelStores()) {
  describe.skipIf(store.skip)(
    `an agent application's credentials and another application's runs (${store.name})`,
    () => {
      let kernel: TestKernel;
      let two: TestWorkspace;
      let oneThings: WorkspaceThings;
      let twoThings: WorkspaceThings;
      let before: unknown;
      beforeAll(async () => {
        kernel = await startTestKernel({}, await store.location());
        oneThings = await plantThings(kernel.url, kernel.workspace, MARK_ONE, { runsBy: 'agent' });
        two = await secondApplication(kernel);
        twoThings = await plantThings(kernel.url, two, MARK_TWO, { runsBy: 'agent' });
        before = await snapshotOf(kernel.url, kernel.workspace, oneThings);
      });
      afterAll(async () => {
        await kernel?.close();
      });

      for (const name of Object.keys(PROBES) as OperationName[]) {
        it(`${name}: application one's things are answered as made-up ones`, async () => {
          const prober = {
            url: kernel.url,
            tokens: { agent: two.tokens.agent, executor: two.tokens.executor },
            own: { workspace: two.id, things: twoThings },
          };
          expect(await probeFindings(prober, name, { things: oneThings, mark: MARK_ONE })).toEqual(
            [],
          );
        });
      }

      it("leaves every row of application one's as it was", async () => {
        expect(await snapshotOf(kernel.url, kernel.workspace, oneThings)).toEqual(before);
      });
    },
  );
}
