import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { AUDIT_EVENT_TYPES } from '../audit/audit-records.js';
import { RetentionPruner } from '../kernel/retention/retention.js';
import { exportedLines, gatedContext, someoneWaitsForALock } from '../testing/gated-store.js';
import { type Answer, waitFor } from '../testing/harness.js';
import {
  deployWithChannels,
  freePort,
  type NotifyDeployment,
  startReceiver,
} from '../testing/notify-kit.js';
import { backends } from '../testing/stores.js';

const all = await backends();
const DAY = 24 * 60 * 60 * 1000;
const SECRET = `whsec_${Buffer.alloc(32, 5).toString('base64')}`;
const FAST = { pollMs: 50, backoff: { baseMs: 20, capMs: 100 } };
const AUDIT = new Set<string>(AUDIT_EVENT_TYPES);
const root = mkdtempSync(join(tmpdir(), 'airlock-retention-redeliver-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`retention and redelivery (${backend.name})`, () => {
    let d: NotifyDeployment | undefined;
    const closers: (() => Promise<void>)[] = [];
    afterEach(async () => {
      await d?.close();
      d = undefined;
      for (const close of closers.splice(0)) await close();
    });

    /**
     * A kernel with a webhook channel whose clock is 100 days past a run that
     * parked (its notice delivered) and was denied, a policy that prunes ended
     * runs after 90 days (events and audit kept), and its own pruner stopped.
     */
    async function oldNotifiedRun() {
      const receiver = await startReceiver();
      closers.push(receiver.close);
      let offset = 0;
      d = await deployWithChannels(
        backend,
        ({ workspaceId }) => ({
          channels: [
            {
              name: 'ops',
              kind: 'webhook',
              workspace: workspaceId,
              url: receiver.url,
              secrets: [SECRET],
            },
          ],
        }),
        { port: await freePort(), notificationTuning: FAST, clock: () => Date.now() + offset },
      );
      const deployment = d;
      await deployment.airlock.kernel.pruner!.stop();
      const runId = await deployment.park();
      const first = await waitFor(
        async () => (await deployment.events(runId, 'notification.delivered'))[0],
        { what: 'the park notice to be delivered' },
      );
      const deny = await deployment.member.post(`${deployment.ws}/runs/${runId}/tasks/t1/deny`, {
        reason: 'not today',
      });
      expect(deny.status).toBe(200);
      await waitFor(
        async () =>
          (await deployment.member.get(`${deployment.ws}/runs/${runId}`)).body.state ===
          'completed',
        { what: 'the run to end' },
      );
      offset += 100 * DAY;
      const policy = await deployment.member.put(`${deployment.ws}/retention`, {
        events_days: null,
        runs_days: 90,
        audit_days: null,
      });
      expect(policy.status).toBe(200);
      const store = deployment.airlock.store;
      /** The events and notification rows left that name the run. */
      const left = async () => ({
        events: (
          await store.db
            .selectFrom('run_events')
            .select('type')
            .where('run_id', '=', runId)
            .orderBy('seq')
            .execute()
        ).map((row) => row.type),
        deliveries: (
          await store.db
            .selectFrom('notification_deliveries')
            .select('id')
            .where('run_id', '=', runId)
            .execute()
        ).length,
        runs: (await store.db.selectFrom('runs').select('id').where('id', '=', runId).execute())
          .length,
      });
      return {
        deployment,
        receiver,
        runId,
        deliveryId: (first.data as { delivery_id: string }).delivery_id,
        exportDir: mkdtempSync(join(root, 'exports-')),
        left,
      };
    }

    it('a notice redelivered (and delivered again) as the pruner deletes its run leaves no event or row naming the run; both deliveries are exported', async () => {
      const old = await oldNotifiedRun();
      const { deployment } = old;
      let redelivered: Answer | undefined;
      // The run's events are pruned and its line exported, its delete not yet started,
      // when a member redelivers its notice and the worker delivers it again.
      const ctx = gatedContext(deployment.airlock.kernel.context, {
        before: async () => {
          const exported = exportedLines(old.exportDir, deployment.workspaceId, 'runs').some(
            (line) => (line.run as { id: string }).id === old.runId,
          );
          if (redelivered || !exported) return;
          redelivered = await deployment.member.post(
            `${deployment.ws}/notifications/${old.deliveryId}/redeliver`,
          );
          // The first notice's event went with the run's events; this one is written after.
          await waitFor(
            async () =>
              old.receiver.received.length === 2 &&
              (await old.left()).events.includes('notification.delivered'),
            { what: 'the redelivered notice to be delivered' },
          );
        },
      });
      const pruner = new RetentionPruner(ctx, {
        exportDir: old.exportDir,
        intervalMs: 10 * 365 * DAY,
      });
      const report = await pruner.pruneNow();
      expect(redelivered?.status).toBe(200);
      expect(old.receiver.received).toHaveLength(2);
      expect(report.runs).toBe(1);
      const left = await old.left();
      // Only the audit records outlive the run (the policy keeps them).
      expect(left.events.filter((type) => !AUDIT.has(type))).toEqual([]);
      expect(left).toMatchObject({ deliveries: 0, runs: 0 });
      // Both notices' events were exported, each once; the run once, with its notice as it ended.
      const delivered = exportedLines(old.exportDir, deployment.workspaceId, 'events').filter(
        (line) => line.run_id === old.runId && line.type === 'notification.delivered',
      );
      expect(delivered).toHaveLength(2);
      expect(new Set(delivered.map((line) => line.seq)).size).toBe(2);
      const runs = exportedLines(old.exportDir, deployment.workspaceId, 'runs').filter(
        (line) => (line.run as { id: string }).id === old.runId,
      );
      expect(runs).toHaveLength(1);
      expect(runs[0]!.notifications).toEqual([
        expect.objectContaining({ id: old.deliveryId, state: 'delivered', attempts: 1 }),
      ]);
      // Once pruned, the notice is gone: a redelivery answers 404 delivery_not_found.
      const again = await deployment.member.post(
        `${deployment.ws}/notifications/${old.deliveryId}/redeliver`,
      );
      expect(again.status).toBe(404);
      expect(again.body.error.code).toBe('delivery_not_found');
    });

    it.skipIf(backend.name !== 'postgres')(
      'a redelivery that meets the pruner’s delete not yet committed waits for it and answers 404 delivery_not_found',
      async () => {
        const old = await oldNotifiedRun();
        const { deployment } = old;
        let redelivery: Promise<Answer> | undefined;
        // The pass has deleted the run and its notice, not committed, when the redelivery comes in.
        const ctx = gatedContext(deployment.airlock.kernel.context, {
          inside: async () => {
            const exported = exportedLines(old.exportDir, deployment.workspaceId, 'runs').some(
              (line) => (line.run as { id: string }).id === old.runId,
            );
            if (redelivery || !exported) return;
            redelivery = deployment.member.post(
              `${deployment.ws}/notifications/${old.deliveryId}/redeliver`,
            );
            await someoneWaitsForALock(deployment.airlock.store);
          },
        });
        const pruner = new RetentionPruner(ctx, {
          exportDir: old.exportDir,
          intervalMs: 10 * 365 * DAY,
        });
        expect(await pruner.pruneNow()).toMatchObject({ runs: 1 });
        const answer = await redelivery!;
        expect(answer.status).toBe(404);
        expect(answer.body.error.code).toBe('delivery_not_found');
        const left = await old.left();
        expect(left.events.filter((type) => !AUDIT.has(type))).toEqual([]);
        expect(left).toMatchObject({ deliveries: 0, runs: 0 });
        expect(old.receiver.received).toHaveLength(1);
      },
    );
  });
}
