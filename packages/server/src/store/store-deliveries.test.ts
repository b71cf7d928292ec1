import { describe, expect, it } from 'vitest';
import { backends, freshStorePerTest } from '../testing/stores.js';
import { createWorkspace } from './accounts.js';
import {
  claimDueDeliveries,
  countPendingDeliveries,
  enqueueDeliveries,
  findDelivery,
  listTaskDeliveries,
  markAttemptFailed,
} from './notifications.js';

const all = await backends();

/**
 * One unit of work may enqueue thousands of deliveries (a run stopped with
 * thousands of parked calls settles each one's Slack notice). They were one
 * INSERT binding 18 values a row: past 1,820 rows SQLite refused it (too many
 * SQL variables) and past 3,640 PostgreSQL did, so the unit, and the stop,
 * failed every time it was tried.
 */
for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`the outbox's enqueue (${backend.name})`, () => {
    const open = freshStorePerTest(backend);

    it('writes 4,000 deliveries of one unit of work, in order', async () => {
      const store = await open();
      const ws = await createWorkspace(store, 'w');
      const ids = await store.transaction((tx) =>
        enqueueDeliveries(
          tx,
          Array.from({ length: 4000 }, (_, i) => ({
            workspace_id: ws.id,
            run_id: 'run_stopped',
            task_key: 't1',
            event_type: 'message.settled',
            channel: `slack-${i}`,
            channel_kind: 'slack' as const,
            payload: { notice: i },
          })),
        ),
      );
      expect(ids).toHaveLength(4000);
      expect(await countPendingDeliveries(store)).toBe(4000);
      const stored = await listTaskDeliveries(store, 'run_stopped', 't1');
      expect(new Set(stored.map((row) => row.id))).toEqual(new Set(ids));
      const channelOf = new Map(stored.map((row) => [row.id, row.channel]));
      expect(ids.map((id) => channelOf.get(id))).toEqual(ids.map((_, i) => `slack-${i}`));
    });

    it("records a failed attempt whose channel's words hold NUL (U+FFFD kept in its place)", async () => {
      const store = await open();
      const ws = await createWorkspace(store, 'w');
      const [id] = await store.transaction((tx) =>
        enqueueDeliveries(tx, [
          {
            workspace_id: ws.id,
            run_id: 'run_1',
            task_key: 't1',
            event_type: 'task.parked',
            channel: 'mail',
            channel_kind: 'email',
            payload: {},
          },
        ]),
      );
      const now = store.now();
      const claimed = await claimDueDeliveries(store, {
        owner: 'worker_a',
        now,
        leaseMs: 60_000,
        limit: 10,
      });
      expect(claimed.map((row) => row.id)).toEqual([id]);
      // As nodemailer words an SMTP server's refusal that carried a NUL.
      const error = 'not sent to a@example.com: 550 no\u0000such mailbox';
      const owned = await store.transaction((tx) =>
        markAttemptFailed(tx, {
          id: id!,
          owner: 'worker_a',
          attempts: 1,
          error,
          retryAt: now + 1000,
        }),
      );
      expect(owned).toBe(true);
      expect(await findDelivery(store, ws.id, id!)).toMatchObject({
        state: 'pending',
        attempts: 1,
        lease_owner: null,
        last_error: 'not sent to a@example.com: 550 no\uFFFDsuch mailbox',
      });
    });
  });
}
