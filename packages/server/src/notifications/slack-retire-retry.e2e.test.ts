import { describe, expect, it } from 'vitest';
import { waitFor } from '../testing/harness.js';
import {
  CHANNELS,
  hasButtons,
  postedTs,
  postedWithButtons,
  slackCalls,
  slackDeploymentPerTest,
} from '../testing/slack-settle-kit.js';
import { backends } from '../testing/stores.js';
import { SENT_AGAIN } from './message-settle.js';

/**
 * A Slack notice sent again whose earlier message Slack would not update at that moment
 * (an outage between the post and the update): the earlier message is retired once Slack
 * takes updates again, through the outbox, so a person does not see two live messages for
 * one call. Before, the failed retire was logged and the earlier message kept its buttons.
 */

const all = await backends();

interface Delivery {
  id: string;
  event_type: string;
  channel: string;
  state: string;
}

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `a Slack notice sent again while Slack refuses updates (${backend.name})`,
    () => {
      const { deploy, d } = slackDeploymentPerTest(backend);

      async function deliveries(runId: string): Promise<Delivery[]> {
        return (await d().member.get(`${d().ws}/notifications?run_id=${runId}`)).body.deliveries;
      }

      it('retires its earlier message once Slack takes updates again, and settles the new one', async () => {
        // Retried until Slack takes it, however long the outage lasts in a loaded run.
        const slack = await deploy({ tuning: { maxAttempts: 10_000 } });
        const runId = await d().park();
        await postedWithButtons(slack);
        const first = postedTs(slack, CHANNELS.approvals, 1);
        // Recorded delivered: until then it is in flight, and a redelivery answers 409.
        const notice = await waitFor(
          async () =>
            (await deliveries(runId)).find(
              (delivery) =>
                delivery.event_type === 'task.parked' &&
                delivery.channel === 'approvals' &&
                delivery.state === 'delivered',
            ),
          { what: 'the approvals notice recorded delivered' },
        );
        slack.refusing.add('chat.update');
        const again = await d().member.post(`${d().ws}/notifications/${notice.id}/redeliver`, {});
        expect(again.status).toBe(200);
        await postedWithButtons(slack, 3);
        const second = postedTs(slack, CHANNELS.approvals, 2);
        // The retire was tried and refused.
        await waitFor(async () => slackCalls(slack, 'update').some((u) => u.ts === first), {
          what: 'the refused retire',
        });
        await d().airlock.notifications!.worker.idle();
        const refused = slackCalls(slack, 'update').length;
        slack.refusing.delete('chat.update');

        const retired = await waitFor(
          async () =>
            slackCalls(slack, 'update')
              .slice(refused)
              .filter((u) => u.ts === first)
              .find((u) => JSON.stringify(u.blocks).includes(SENT_AGAIN)),
          { what: 'the earlier message retired after the outage' },
        );
        expect(hasButtons(retired)).toBe(false);

        // The retire is not the notice's settle: the decision still settles the new message.
        const approved = await d().member.post(`${d().ws}/runs/${runId}/tasks/t1/approve`, {});
        expect(approved.status).toBe(200);
        const settled = await waitFor(
          async () =>
            slackCalls(slack, 'update')
              .filter((u) => u.ts === second)
              .at(-1),
          { what: 'the new message settled' },
        );
        expect(JSON.stringify(settled.blocks)).toMatch(/Approved by/);
        expect(hasButtons(settled)).toBe(false);
      });
    },
  );
}
