import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { listTaskDeliveries } from '../store/notifications.js';
import { Store } from '../store/store.js';
import { gated } from '../testing/gated-store.js';
import { waitFor } from '../testing/harness.js';
import {
  CHANNELS,
  postedWithButtons,
  slackCalls,
  slackDeploymentPerTest,
} from '../testing/slack-settle-kit.js';
import { backends } from '../testing/stores.js';
import { settleAgainIfChanged, settledNotice } from './message-settle.js';

/**
 * Two kernels sharing one PostgreSQL database each follow a Slack message's settle that is
 * on its way with a fresh one (a press's quorum progress landed on the message meanwhile):
 * they take turns on the notice, so the second finds the first's fresh settle still to be
 * sent and adds none. Before, each read the in-flight settle unlocked and each enqueued one.
 */

const postgres = (await backends()).find((backend) => backend.name === 'postgres')!;

describe.skipIf(postgres.skip !== null)('re-settling a Slack message from two kernels', () => {
  const { deploy, d } = slackDeploymentPerTest(postgres);

  it('makes one fresh settle, not one per kernel', async () => {
    // chat.update unanswered: the settle stays in flight, leased by the kernel's worker. The
    // worker claims only when nudged by an enqueue of the outbox (no poll meanwhile), so the
    // fresh settle below stays unclaimed while the second kernel reads it.
    const slack = await deploy({ hold: ['chat.update'], tuning: { pollMs: 60_000 } });
    const runId = await d().park();
    await postedWithButtons(slack);
    const notices = (await d().member.get(`${d().ws}/notifications?run_id=${runId}`)).body
      .deliveries as { id: string; event_type: string; channel: string }[];
    const notice = notices.find(
      (delivery) => delivery.event_type === 'task.parked' && delivery.channel === 'approvals',
    )!;
    expect((await d().member.post(`${d().ws}/runs/${runId}/tasks/t1/deny`, {})).status).toBe(200);
    await waitFor(
      async () =>
        slackCalls(slack, 'update').some((update) => update.channel === CHANNELS.approvals),
      { what: 'the settle of the approvals message on its way' },
    );

    const kernelA = await Store.open({ databaseUrl: d().databaseUrl! });
    const kernelB = await Store.open({ databaseUrl: d().databaseUrl! });
    try {
      // What a press made before the deny sees when its progress update has landed.
      const pressed = {
        workspace_id: d().workspaceId,
        run_id: runId,
        task_key: 't1',
        delivery_id: notice.id,
        version: 'the version the press approved',
      };
      let secondDone = false;
      let second: Promise<boolean> | undefined;
      const first = settleAgainIfChanged(
        gated(kernelA, {
          // Kernel B re-settles while kernel A's unit is still open; A commits once B is done or waits.
          inside: async () => {
            second = settleAgainIfChanged(kernelB, pressed).finally(() => {
              secondDone = true;
            });
            await waitFor(async () => secondDone || (await waitsForALock(kernelA)), {
              what: 'the second kernel done or waiting for the first',
            });
          },
        }),
        pressed,
      );
      const made = [await first, await second!];
      const settles = (await listTaskDeliveries(kernelA, runId, 't1')).filter(
        (delivery) => settledNotice(delivery) === notice.id,
      );
      // The deny's settle (in flight) and one fresh settle after it.
      expect(settles).toHaveLength(2);
      expect(made).toEqual([true, false]);
    } finally {
      await kernelA.close();
      await kernelB.close();
    }
  });
});

/** Whether a session of the database waits for a lock another holds. */
async function waitsForALock(store: Store): Promise<boolean> {
  const { rows } = await sql<{ n: number | string }>`
    select count(*) as n from pg_stat_activity
    where datname = current_database() and wait_event_type = 'Lock'`.execute(store.db);
  return Number(rows[0]!.n) > 0;
}
