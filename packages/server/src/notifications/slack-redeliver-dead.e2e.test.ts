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
 * A Slack notice sent again that Slack never takes (dead-lettered) leaves its earlier
 * message as it was: its buttons still decide the call, it points at no newer message
 * (there is none), and the call's settle updates it. Before, the earlier message was
 * retired before the post, pointing a person at a message that never came, and then
 * settled by nothing.
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
    `a Slack notice sent again in vain (${backend.name})`,
    () => {
      const { deploy, d } = slackDeploymentPerTest(backend);

      async function deliveries(runId: string): Promise<Delivery[]> {
        return (await d().member.get(`${d().ws}/notifications?run_id=${runId}`)).body.deliveries;
      }

      it('keeps its earlier message live, then settles that message', async () => {
        const slack = await deploy({ tuning: { maxAttempts: 2 } });
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
        slack.refusing.add('chat.postMessage');
        const again = await d().member.post(`${d().ws}/notifications/${notice.id}/redeliver`, {});
        expect(again.status).toBe(200);
        await waitFor(
          async () =>
            (await deliveries(runId)).find((delivery) => delivery.id === notice.id)?.state ===
            'dead',
          { what: 'the notice sent again dead-lettered' },
        );
        const updatesOfFirst = () => slackCalls(slack, 'update').filter((u) => u.ts === first);
        // Nothing claims a newer message: the first keeps its buttons.
        expect(
          updatesOfFirst().filter((update) => JSON.stringify(update.blocks).includes(SENT_AGAIN)),
        ).toEqual([]);

        slack.refusing.delete('chat.postMessage');
        const approved = await d().member.post(`${d().ws}/runs/${runId}/tasks/t1/approve`, {});
        expect(approved.status).toBe(200);
        const settled = await waitFor(async () => updatesOfFirst().at(-1), {
          what: 'the first message settled',
        });
        expect(JSON.stringify(settled.blocks)).toMatch(/Approved by/);
        expect(hasButtons(settled)).toBe(false);
      });
    },
  );
}
