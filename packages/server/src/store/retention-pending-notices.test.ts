import { afterEach, describe, expect, it } from 'vitest';
import { type Deployment, deploy, waitFor } from '../testing/harness.js';
import { backends } from '../testing/stores.js';
import { endedRunsBefore } from './retention-ended-runs.js';
import { deleteRuns, deliveriesOfRuns, RunsChangedError } from './retention-runs.js';

/**
 * An ended run whose notice is still pending (its receiver down, retried with
 * backoff until it is delivered or dead-lettered) is not pruned: pruning takes
 * the run's deliveries with it, and the notice would never be sent. Once the
 * notice is delivered or dead-lettered the run goes like any other.
 */

const available = (await backends()).filter((backend) => backend.skip === null);

/** A run that completed at once, and its id. */
async function completedRun(deployment: Deployment): Promise<string> {
  const run = await deployment.member.post(`${deployment.ws}/runs`, {
    approval_mode: 'bypass',
    input: 'go',
    provider: { kind: 'scripted', rounds: [{ final: 'done' }] },
  });
  const runId = run.body.id as string;
  await waitFor(
    async () =>
      (await deployment.member.get(`${deployment.ws}/runs/${runId}`)).body.state === 'completed',
  );
  return runId;
}

/** Writes a pending notice of `runId` as the outbox holds one, unclaimed. */
async function pendingNotice(
  deployment: Deployment,
  runId: string,
  notice: {
    id: string;
    event_type: string;
    attempts: number;
    next_attempt_at: number;
    now: number;
  },
): Promise<void> {
  await deployment.airlock.store.db
    .insertInto('notification_deliveries')
    .values({
      id: notice.id,
      workspace_id: deployment.workspaceId,
      run_id: runId,
      task_key: null,
      event_type: notice.event_type,
      channel: 'ops',
      channel_kind: 'webhook',
      payload: '{}',
      state: 'pending',
      attempts: notice.attempts,
      next_attempt_at: notice.next_attempt_at,
      lease_owner: null,
      lease_until: null,
      last_error: notice.attempts > 1 ? 'connect ECONNREFUSED' : null,
      external_ref: null,
      created_at: notice.now,
      updated_at: notice.now,
      delivered_at: null,
    })
    .execute();
}

describe.each(available)('the runs the pruner takes on $name', (backend) => {
  let d: Deployment | undefined;
  afterEach(async () => {
    await d?.close();
    d = undefined;
  });

  it('leaves out an ended run while one of its notices waits to be delivered', async () => {
    d = await deploy(backend);
    const deployment = d;
    const runId = await completedRun(deployment);
    const store = deployment.airlock.store;
    const now = Date.now();
    // A notice of the run that a receiver has not taken yet: retried later.
    await pendingNotice(deployment, runId, {
      id: 'dlv_pending_probe',
      event_type: 'run.failed',
      attempts: 3,
      next_attempt_at: now + 86_400_000,
      now,
    });
    const taken = async () =>
      (
        await endedRunsBefore(store, {
          workspaceId: deployment.workspaceId,
          cutoff: Date.now() + 1_000,
          limit: 10,
        })
      ).map((row) => row.id);

    expect(await taken()).not.toContain(runId);
    for (const state of ['dead', 'delivered'] as const) {
      await store.db
        .updateTable('notification_deliveries')
        .set({ state })
        .where('id', '=', 'dlv_pending_probe')
        .execute();
      expect(await taken()).toContain(runId);
    }
  });
  it('rolls its delete back when a worker claimed one of its notices after the pruner read them', async () => {
    d = await deploy(backend);
    const deployment = d;
    const runId = await completedRun(deployment);
    const store = deployment.airlock.store;
    const now = store.now();
    // Redelivered after the pruner chose the run: pending, due now, not claimed yet.
    await pendingNotice(deployment, runId, {
      id: 'dlv_claimed_probe',
      event_type: 'run.completed',
      attempts: 1,
      next_attempt_at: now,
      now,
    });
    // As a pass does before its last step: the run's events went first.
    await store.db.deleteFrom('run_events').where('run_id', '=', runId).execute();
    const read = await deliveriesOfRuns(store, [runId]);
    const claim = (leaseUntil: number) =>
      store.db
        .updateTable('notification_deliveries')
        .set({ lease_owner: 'worker-1', lease_until: leaseUntil })
        .where('id', '=', 'dlv_claimed_probe')
        .execute();
    const remove = () =>
      store.transaction((tx) =>
        deleteRuns(tx, {
          workspaceId: deployment.workspaceId,
          runIds: [runId],
          conversations: [],
          deliveries: read,
          keptTypes: ['policy.changed'],
        }),
      );
    const runsLeft = async () =>
      (await store.db.selectFrom('runs').select('id').where('id', '=', runId).execute()).length;
    // A worker's claim writes its lease alone: the notice may be on its way to the channel.
    await claim(now + 60_000);
    await expect(remove()).rejects.toBeInstanceOf(RunsChangedError);
    expect(await runsLeft()).toBe(1);
    // A claim whose lease lapsed (its worker gone) holds nothing back.
    await claim(now - 1);
    await remove();
    expect(await runsLeft()).toBe(0);
  });
});
