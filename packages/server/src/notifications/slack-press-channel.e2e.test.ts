import { describe, expect, it } from 'vitest';
import { waitFor } from '../testing/harness.js';
import {
  closeAfterEach,
  deployWithChannels,
  FAST_DELIVERY,
  freePort,
  type NotifyDeployment,
} from '../testing/notify-kit.js';
import { fieldsOf, press, signed, startSlack } from '../testing/slack-kit.js';
import {
  CHANNELS,
  postedTs,
  postedWithButtons,
  slackChannelsConfig,
} from '../testing/slack-settle-kit.js';
import { backends } from '../testing/stores.js';

/**
 * Two Slack channels of a workspace posted by one Slack app share its one interactivity URL,
 * so a press on either's message reaches the URL of one of them. The press is the member the
 * channel that posted the message maps the Slack user to: a channel mapping fewer people (an
 * on-call channel) is not opened to everyone the other channel maps.
 */

const all = await backends();

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `a press reaching another channel's URL (${backend.name})`,
    () => {
      let current: NotifyDeployment | undefined;
      const closers = closeAfterEach(() => current);

      it('is decided by the members of the channel that posted the message', async () => {
        const slack = await startSlack();
        closers.push(slack.close);
        const d = await deployWithChannels(
          backend,
          (ids) => {
            const { channels } = slackChannelsConfig(slack, ids);
            const [approvals, oncall] = channels;
            // Oncall maps Alice alone; approvals maps Alice and Bob.
            return {
              channels: [approvals, { ...oncall!, members: { U_ALICE: ids.memberCredentialId } }],
            };
          },
          { port: await freePort(), notificationTuning: FAST_DELIVERY },
        );
        current = d;
        const runId = await d.park();
        const posts = await postedWithButtons(slack);
        const oncallPost = posts.find((post) => post.channel === CHANNELS.oncall)!;
        // The app's interactivity URL is the approvals channel's.
        const body = press(oncallPost, 'airlock_approve', 'U_BOB', {
          channel: CHANNELS.oncall,
          ts: postedTs(slack, CHANNELS.oncall),
        });
        const answer = await fetch(
          `${d.url}/notifications/slack/${d.workspaceId}/approvals/interactions`,
          { method: 'POST', headers: signed(body), body },
        );
        expect(answer.status).toBe(200);
        // The decision is recorded (or refused) before Slack is answered.
        const task = (await d.member.get(`${d.ws}/runs/${runId}/tasks/t1`)).body;
        expect(task.state).toBe('needs_approval');
        // Bob is told alone that his press counted for nothing.
        const told = await waitFor(
          async () => slack.received.find((r) => r.path === '/api/chat.postEphemeral'),
          { what: 'the private refusal' },
        );
        expect(String(fieldsOf(told).text)).toContain('not mapped');
      });
    },
  );
}
