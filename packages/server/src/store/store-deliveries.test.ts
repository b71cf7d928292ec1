import { describe, expect, it } from 'vitest';
import { backends, freshStorePerTest } from '../testing/stores.js';
import { createWorkspace } from './accounts.js';
import { countPendingDeliveries, enqueueDeliveries, listTaskDeliveries } from './notifications.js';

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
  });
}
