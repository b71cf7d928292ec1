import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../testing/harness.js';
import { fieldsOf, press, signed } from '../testing/slack-kit.js';
import {
  CHANNELS,
  postedTs,
  postedWithButtons,
  type Slack,
  settledInBoth,
  slackCalls,
  slackChannelsConfig,
  slackDeploymentPerTest,
} from '../testing/slack-settle-kit.js';
import { backends } from '../testing/stores.js';
import { parseNotificationsConfig } from './config.js';
import { SlackSender } from './slack.js';
import { handleSlackInteraction } from './slack-interactions.js';

/**
 * A Slack notice is settled once its call stops waiting, wherever that happened: the
 * message loses its buttons and says what became of the call, in every channel that
 * posted it, whether the call was decided by a press there, in another channel, in the
 * inbox or the API, by the clock or by the run's end.
 */

const all = await backends();

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`Slack notices settled (${backend.name})`, () => {
    const { deploy, d } = slackDeploymentPerTest(backend);

    const task = async (runId: string) =>
      (await d().member.get(`${d().ws}/runs/${runId}/tasks/t1`)).body;

    /** Parks a call, waits for its posts, then a member approves it with an edited input. */
    async function parkAndEdit(slack: Slack): Promise<string> {
      const runId = await d().park();
      await postedWithButtons(slack);
      const { version } = await task(runId);
      const edited = await d().member.post(`${d().ws}/runs/${runId}/tasks/t1/approve`, {
        version,
        tool_input: { command: 'rm -rf /tmp/edited' },
      });
      expect(edited.status).toBe(200);
      return runId;
    }

    it('a call approved through the API settles its message in every channel: no buttons, who decided', async () => {
      const slack = await deploy();
      const runId = await d().park();
      const posts = await postedWithButtons(slack);
      const approved = await d().member.post(`${d().ws}/runs/${runId}/tasks/t1/approve`, {});
      expect(approved.status).toBe(200);
      const updates = await settledInBoth(slack);
      for (const post of posts) {
        const update = updates.get(String(post.channel))!;
        // Each update names the message its channel was posted.
        expect(update.ts).toBe(postedTs(slack, String(post.channel)));
        const shown = JSON.stringify(update.blocks);
        expect(shown).toContain('rm -rf /tmp/x');
        expect(shown).not.toContain('airlock_approve');
        expect(shown).toMatch(/Approved by [^"]+/);
        expect(String(update.text)).toContain('Approval needed: bash');
      }
      // The settles are deliveries of their own, delivered, and in the run's story (once the
      // worker recorded what Slack answered: the fake logs a request before it answers).
      await d().airlock.notifications!.worker.idle();
      const listed = await d().member.get(`${d().ws}/notifications?run_id=${runId}`);
      const settles = (listed.body.deliveries as { event_type: string; state: string }[]).filter(
        (delivery) => delivery.event_type === 'message.settled',
      );
      expect(settles.map((s) => s.state)).toEqual(['delivered', 'delivered']);
      const story = await d().events(runId, 'notification.delivered');
      expect(
        story.filter(
          (event) => (event.data as { notified?: string }).notified === 'message.settled',
        ),
      ).toHaveLength(2);
    });

    it('a press in one channel settles the messages of both, once each, saying it came from Slack', async () => {
      const slack = await deploy();
      const runId = await d().park();
      const posts = await postedWithButtons(slack);
      const oncall = posts.find((p) => p.channel === CHANNELS.oncall)!;
      const where = { channel: CHANNELS.oncall, ts: postedTs(slack, CHANNELS.oncall) };
      const body = press(oncall, 'airlock_approve', 'U_ALICE', where);
      const endpoint = `${d().url}/notifications/slack/${d().workspaceId}/oncall/interactions`;
      expect((await fetch(endpoint, { method: 'POST', headers: signed(body), body })).status).toBe(
        200,
      );
      expect((await task(runId)).state).toBe('runnable');
      const updates = await settledInBoth(slack);
      expect(updates.get(CHANNELS.oncall)!.ts).toBe(where.ts);
      for (const update of updates.values()) {
        expect(JSON.stringify(update.blocks)).toContain('via Slack, u_alice');
        expect(JSON.stringify(update.blocks)).not.toContain('airlock_approve');
      }
      await d().airlock.notifications!.worker.idle();
      expect(slackCalls(slack, 'update')).toHaveLength(2);
      const [approvedEvent] = await d().events(runId, 'task.approved');
      expect((approvedEvent!.data as { via?: string }).via).toBe('Slack, u_alice');
    });

    it('a quorum press whose progress update reaches Slack after the settle of a decision made meanwhile is settled again after it', async () => {
      const slack = await deploy();
      await d().member.put(`${d().ws}/approval_policy`, {
        policy: { rules: [{ actions: ['destructive'], required: 2 }] },
      });
      const runId = await d().park();
      const posts = await postedWithButtons(slack);
      const approvals = posts.find((p) => p.channel === CHANNELS.approvals)!;
      // Alice's press, through the kernel's own handler: its follow-up (the progress update) is
      // held back until Bob has decided the call and its settle has reached Slack.
      const config = parseNotificationsConfig(
        slackChannelsConfig(slack, {
          workspaceId: d().workspaceId,
          memberCredentialId: d().memberCredentialId,
          otherMemberCredentialId: d().otherMember.credentialId,
        }),
      );
      const channel = config.channels.find((c) => c.name === 'approvals');
      if (channel?.kind !== 'slack') throw new Error('the approvals channel is a Slack channel');
      const logger = pino({ level: 'silent' });
      const where = { channel: CHANNELS.approvals, ts: postedTs(slack, CHANNELS.approvals) };
      const body = press(approvals, 'airlock_approve', 'U_ALICE', where);
      const answer = await handleSlackInteraction({
        ctx: d().airlock.kernel.context,
        channel,
        sender: new SlackSender(channel, logger),
        logger,
        headers: {
          timestamp: signed(body)['x-slack-request-timestamp'],
          signature: signed(body)['x-slack-signature'],
        },
        body,
      });
      expect(answer.status).toBe(200);
      expect((await task(runId)).approvals.received).toHaveLength(1);
      const bob = await d().otherMember.client.post(`${d().ws}/runs/${runId}/tasks/t1/approve`, {});
      expect(bob.status).toBe(200);
      expect(bob.body.state).toBe('runnable');
      await settledInBoth(slack);
      await answer.followUp!();
      const last = await waitFor(
        async () => {
          const here = slackCalls(slack, 'update').filter((u) => u.channel === CHANNELS.approvals);
          return here.length === 3 ? here.at(-1) : undefined;
        },
        { what: 'the settle sent again after the progress update' },
      );
      const shown = JSON.stringify(last.blocks);
      expect(shown).toContain('Approved by');
      expect(shown).not.toContain('airlock_approve');
    });

    it('a deny and a stopped run each settle the message with what became of the call', async () => {
      const slack = await deploy();
      const denied = await d().park();
      await postedWithButtons(slack);
      const deny = await d().otherMember.client.post(`${d().ws}/runs/${denied}/tasks/t1/deny`, {
        reason: 'not today',
      });
      expect(deny.status).toBe(200);
      for (const update of (await settledInBoth(slack)).values()) {
        expect(JSON.stringify(update.blocks)).toContain(
          `Denied by member:${d().otherMember.credentialId}`,
        );
      }
      slack.received.length = 0;
      const stopped = await d().park();
      await postedWithButtons(slack);
      const stop = await d().member.post(`${d().ws}/runs/${stopped}/stop`, {});
      expect(stop.status).toBe(200);
      for (const update of (await settledInBoth(slack)).values()) {
        const shown = JSON.stringify(update.blocks);
        expect(shown).toContain('Canceled: the run ended or was stopped');
        expect(shown).not.toContain('airlock_approve');
      }
    });

    it('a park nobody decided in time is settled as expired', async () => {
      const slack = await deploy({ parkTtlMs: 1000 });
      const runId = await d().park();
      await postedWithButtons(slack);
      await waitFor(async () => (await task(runId)).state === 'timed_out', { what: 'expiry' });
      for (const update of (await settledInBoth(slack)).values()) {
        expect(JSON.stringify(update.blocks)).toContain('Expired: nobody decided in time');
      }
    });

    it('a notice Slack refused until its call was decided is settled once it is posted', async () => {
      const slack = await deploy();
      slack.refusing.add('chat.postMessage');
      const runId = await d().park();
      await waitFor(async () => slackCalls(slack, 'postMessage').length >= 2, {
        what: 'refused posts',
      });
      const approved = await d().member.post(`${d().ws}/runs/${runId}/tasks/t1/approve`, {});
      expect(approved.status).toBe(200);
      // Meanwhile the settles wait for their notices: nothing to update yet.
      await waitFor(
        async () => {
          const listed = await d().member.get(`${d().ws}/notifications?run_id=${runId}`);
          return (listed.body.deliveries as { event_type: string; last_error: string | null }[])
            .filter((delivery) => delivery.event_type === 'message.settled')
            .some((delivery) => delivery.last_error?.includes('not posted yet'));
        },
        { what: 'a settle waiting for its notice' },
      );
      expect(slackCalls(slack, 'update')).toHaveLength(0);
      slack.refusing.delete('chat.postMessage');
      const updates = await settledInBoth(slack);
      // Each message was updated after its one accepted post (the last post to its channel).
      const sent = slack.received.map((r) => ({ path: r.path, channel: fieldsOf(r).channel }));
      for (const channel of Object.values(CHANNELS)) {
        const lastPost = sent.findLastIndex(
          (r) => r.path === '/api/chat.postMessage' && r.channel === channel,
        );
        const update = sent.findIndex(
          (r) => r.path === '/api/chat.update' && r.channel === channel,
        );
        expect(lastPost).toBeGreaterThanOrEqual(0);
        expect(update).toBeGreaterThan(lastPost);
      }
      for (const update of updates.values()) {
        expect(JSON.stringify(update.blocks)).toMatch(/Approved by/);
      }
    });

    it("a settle outlasts its notice's slow post, however few attempts the channel allows", async () => {
      const hold = ['chat.postMessage'];
      // Each notice's first post hangs until its attempt's deadline (1 s); three attempts at most.
      const slack = await deploy({ hold, tuning: { maxAttempts: 3, leaseMs: 2000 } });
      const runId = await d().park();
      await waitFor(async () => slackCalls(slack, 'postMessage').length === 2, {
        what: 'both posts under way',
      });
      const approved = await d().member.post(`${d().ws}/runs/${runId}/tasks/t1/approve`, {});
      expect(approved.status).toBe(200);
      const settles = async () =>
        (
          (await d().member.get(`${d().ws}/notifications?run_id=${runId}`)).body.deliveries as {
            event_type: string;
            state: string;
            attempts: number;
            last_error: string | null;
          }[]
        ).filter((delivery) => delivery.event_type === 'message.settled');
      await waitFor(
        async () =>
          (await settles()).filter((settle) => settle.last_error?.includes('not posted yet'))
            .length === 2,
        { what: 'both settles waiting for their notices' },
      );
      // Long enough for three counted attempts at this backoff (20 to 100 ms): the settles wait
      // for their notices without spending any.
      await new Promise((resolve) => setTimeout(resolve, 500));
      for (const settle of await settles())
        expect(settle).toMatchObject({ state: 'pending', attempts: 0 });
      hold.length = 0;
      for (const update of (await settledInBoth(slack)).values()) {
        expect(JSON.stringify(update.blocks)).toMatch(/Approved by/);
      }
      await d().airlock.notifications!.worker.idle();
      expect((await settles()).map((settle) => settle.state)).toEqual(['delivered', 'delivered']);
    });

    it('an edit approved at once settles the message and posts no notice for the edited call', async () => {
      const slack = await deploy();
      const runId = await parkAndEdit(slack);
      expect((await task(runId)).state).toBe('runnable');
      for (const update of (await settledInBoth(slack)).values()) {
        expect(JSON.stringify(update.blocks)).toMatch(/Approved by/);
      }
      await d().airlock.notifications!.worker.idle();
      const withButtons = slackCalls(slack, 'postMessage').filter((p) =>
        JSON.stringify(p.blocks).includes('airlock_approve'),
      );
      expect(withButtons).toHaveLength(2);
    });

    it('an edit that still parks settles the old message and posts the edited call', async () => {
      const slack = await deploy();
      await d().member.put(`${d().ws}/approval_policy`, {
        policy: { rules: [{ actions: ['destructive'], required: 2 }] },
      });
      const runId = await parkAndEdit(slack);
      expect((await task(runId)).state).toBe('needs_approval');
      for (const update of (await settledInBoth(slack)).values()) {
        expect(JSON.stringify(update.blocks)).toContain('the edited call waits in a new message');
        expect(JSON.stringify(update.blocks)).not.toContain('airlock_approve');
      }
      const fresh = await waitFor(async () => {
        const again = slackCalls(slack, 'postMessage').filter((p) =>
          String(p.text).startsWith('Approval needed for the edited call'),
        );
        return again.length === 2 ? again : undefined;
      });
      expect(JSON.stringify(fresh[0]!.blocks)).toContain('airlock_approve');
    });
  });
}
