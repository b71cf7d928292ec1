import { describe, expect, it } from 'vitest';
import { waitFor } from '../testing/harness.js';
import {
  closeAfterEach,
  deployWithChannels,
  FAST_DELIVERY,
  freePort,
  type NotifyDeployment,
} from '../testing/notify-kit.js';
import { startSlack } from '../testing/slack-kit.js';
import {
  CHANNELS,
  postedTs,
  type Slack,
  slackCalls,
  slackChannelsConfig,
} from '../testing/slack-settle-kit.js';
import { backends } from '../testing/stores.js';

/**
 * An edit that still parks settles the call's messages with "the edited call waits in a new
 * message": true in a channel the edited call is posted to, not in one whose `when` no longer
 * takes it (its action tags changed with its input). Such a message says where the call waits.
 */

const all = await backends();

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `an edit a channel no longer takes (${backend.name})`,
    () => {
      let current: NotifyDeployment | undefined;
      const closers = closeAfterEach(() => current);

      /** Approvals takes destructive calls only; oncall takes every call. */
      async function deploy(): Promise<{ slack: Slack; d: NotifyDeployment }> {
        const slack = await startSlack();
        closers.push(slack.close);
        const d = await deployWithChannels(
          backend,
          (ids) => {
            const { channels } = slackChannelsConfig(slack, ids);
            const [approvals, ...others] = channels;
            return {
              channels: [{ ...approvals, when: { action_tags: ['destructive'] } }, ...others],
            };
          },
          { port: await freePort(), notificationTuning: FAST_DELIVERY },
        );
        current = d;
        return { slack, d };
      }

      it('does not point the channel at a new message it is not sent', async () => {
        const { slack, d } = await deploy();
        // Two approvals for bash: the editor's approval leaves the edited call waiting.
        const policy = await d.member.put(`${d.ws}/approval_policy`, {
          policy: { rules: [{ tool: 'bash', required: 2 }] },
        });
        expect(policy.status).toBe(200);
        const runId = await d.park();
        await waitFor(async () => slackCalls(slack, 'postMessage').length === 2, {
          what: 'the park posted in both channels',
        });
        const { version } = (await d.member.get(`${d.ws}/runs/${runId}/tasks/t1`)).body;
        const edited = await d.member.post(`${d.ws}/runs/${runId}/tasks/t1/approve`, {
          version,
          tool_input: { command: 'ls /tmp' },
        });
        expect(edited.status).toBe(200);
        expect((await d.member.get(`${d.ws}/runs/${runId}/tasks/t1`)).body.state).toBe(
          'needs_approval',
        );
        const first = postedTs(slack, CHANNELS.approvals);
        const settled = await waitFor(
          async () => slackCalls(slack, 'update').find((update) => update.ts === first),
          { what: 'the approvals message settled' },
        );
        await d.airlock.notifications!.worker.idle();
        const approvalsPosts = slackCalls(slack, 'postMessage').filter(
          (post) => post.channel === CHANNELS.approvals,
        );
        // The edited call (no longer destructive) is not posted in approvals ...
        expect(approvalsPosts).toHaveLength(1);
        // ... so its message does not send a person looking for one.
        expect(JSON.stringify(settled.blocks)).not.toContain('waits in a new message');
        expect(JSON.stringify(settled.blocks)).toContain('Airlock inbox');
        // Oncall is sent the edited call, and its message says so.
        const oncall = postedTs(slack, CHANNELS.oncall);
        const oncallSettle = await waitFor(
          async () => slackCalls(slack, 'update').find((update) => update.ts === oncall),
          { what: 'the oncall message settled' },
        );
        expect(JSON.stringify(oncallSettle.blocks)).toContain(
          'the edited call waits in a new message',
        );
      });
    },
  );
}
