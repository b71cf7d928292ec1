import { describe, expect, it } from 'vitest';
import { waitFor } from '../testing/harness.js';
import {
  CHANNELS,
  hasButtons,
  postedTs,
  postedWithButtons,
  type Slack,
  settledInBoth,
  slackCalls,
  slackDeploymentPerTest,
} from '../testing/slack-settle-kit.js';
import { backends } from '../testing/stores.js';
import { SENT_AGAIN } from './message-settle.js';

/**
 * A Slack notice a person sends again (`airlock notifications redeliver`) is a new
 * message. Its earlier message then loses its buttons, pointing at the new one, so
 * each notice has one message a person can press, and that is the one its settle
 * reaches, whether the call is decided after the redelivery or was decided before it.
 */

const all = await backends();

interface Delivery {
  id: string;
  event_type: string;
  channel: string;
  state: string;
  last_error: string | null;
}

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`Slack notices sent again (${backend.name})`, () => {
    const { deploy, d } = slackDeploymentPerTest(backend);

    async function deliveries(runId: string): Promise<Delivery[]> {
      return (await d().member.get(`${d().ws}/notifications?run_id=${runId}`)).body.deliveries;
    }

    /**
     * Parks a call, waits for its two posts, and answers the approvals channel's notice once
     * recorded delivered (until then it is in flight, and a redelivery answers 409).
     */
    async function parkedNotice(slack: Slack) {
      const runId = await d().park();
      await postedWithButtons(slack);
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
      return { runId, notice };
    }

    /** A person sends the notice again (`airlock notifications redeliver`). */
    async function redeliver(noticeId: string) {
      const again = await d().member.post(`${d().ws}/notifications/${noticeId}/redeliver`, {});
      expect(again.status).toBe(200);
    }

    /** Waits for the message with `ts` to be settled: its outcome shown, its buttons gone. */
    async function settledWith(slack: Slack, ts: string, outcome: RegExp) {
      const settle = await waitFor(async () => updatesOf(slack, ts)[0], {
        what: `message ${ts} settled`,
      });
      expect(JSON.stringify(settle.blocks)).toMatch(outcome);
      expect(hasButtons(settle)).toBe(false);
    }

    /** Waits for the `nth` message Slack accepted in the approvals channel to be settled with `outcome`. */
    async function nthApprovalsMessageSettled(slack: Slack, nth: number, outcome: RegExp) {
      const ts = await waitFor(
        async () => slack.posts.filter((post) => post.channel === CHANNELS.approvals)[nth - 1]?.ts,
        { what: `message ${nth} in the approvals channel` },
      );
      await settledWith(slack, ts, outcome);
    }

    /** The updates Slack received of the message with `ts`. */
    const updatesOf = (slack: Slack, ts: string) =>
      slackCalls(slack, 'update').filter((update) => update.ts === ts);

    it('a notice sent again while its call waits retires its first message, and the decision settles the new one', async () => {
      const slack = await deploy();
      const { runId, notice } = await parkedNotice(slack);
      await redeliver(notice.id);
      const posts = await postedWithButtons(slack, 3);
      expect(posts[2]!.channel).toBe(CHANNELS.approvals);
      const first = postedTs(slack, CHANNELS.approvals, 1);
      const second = postedTs(slack, CHANNELS.approvals, 2);
      // The first message was retired once the second was posted.
      const retired = await waitFor(async () => updatesOf(slack, first)[0], {
        what: 'the first message retired',
      });
      expect(JSON.stringify(retired!.blocks)).toContain(SENT_AGAIN);
      expect(hasButtons(retired!)).toBe(false);
      expect(JSON.stringify(retired!.blocks)).toContain('rm -rf /tmp/x');
      const order = slack.received.map((r) => r.path);
      expect(order.indexOf('/api/chat.update')).toBeGreaterThan(
        order.lastIndexOf('/api/chat.postMessage'),
      );

      const approved = await d().member.post(`${d().ws}/runs/${runId}/tasks/t1/approve`, {});
      expect(approved.status).toBe(200);
      await settledWith(slack, second, /Approved by/);
      const oncall = postedTs(slack, CHANNELS.oncall);
      await waitFor(async () => updatesOf(slack, oncall).length === 1, {
        what: 'the other channel settled',
      });
      await d().airlock.notifications!.worker.idle();
      // The retired message is left as retired: the settle went to the new one only.
      expect(updatesOf(slack, first)).toHaveLength(1);
    });

    it('a notice sent again after its call was decided is posted without buttons, then settled with the outcome', async () => {
      const slack = await deploy();
      const { runId, notice } = await parkedNotice(slack);
      const denied = await d().member.post(`${d().ws}/runs/${runId}/tasks/t1/deny`, {
        reason: 'not today',
      });
      expect(denied.status).toBe(200);
      await settledInBoth(slack);
      // Both settles recorded as sent (one still on its way is followed by a fresh one instead).
      await d().airlock.notifications!.worker.idle();
      await redeliver(notice.id);
      // Posted already saying what became of the call: no button to press meanwhile.
      const again = await waitFor(async () => slackCalls(slack, 'postMessage')[2], {
        what: 'the notice posted again',
      });
      expect(hasButtons(again)).toBe(false);
      expect(JSON.stringify(again.blocks)).toMatch(/Denied by/);
      await nthApprovalsMessageSettled(slack, 2, /Denied by/);
      await d().airlock.notifications!.worker.idle();
      const settles = (await deliveries(runId)).filter(
        (delivery) => delivery.event_type === 'message.settled',
      );
      expect(settles.map((delivery) => delivery.state)).toEqual(['delivered', 'delivered']);
    });

    it('a notice dead-lettered before its call was decided is settled once a person sends it again', async () => {
      const slack = await deploy({ tuning: { maxAttempts: 2 } });
      slack.refusing.add('chat.postMessage');
      const runId = await d().park();
      const dead = await waitFor(
        async () => {
          const notices = (await deliveries(runId)).filter((n) => n.event_type === 'task.parked');
          return notices.length === 2 && notices.every((n) => n.state === 'dead')
            ? notices
            : undefined;
        },
        { what: 'both notices dead-lettered' },
      );
      const approved = await d().member.post(`${d().ws}/runs/${runId}/tasks/t1/approve`, {});
      expect(approved.status).toBe(200);
      slack.refusing.delete('chat.postMessage');
      // The settles found nothing to update (their notices dead) and are recorded so: the
      // redelivery makes them due again (one read while the notice was still dead, as it was
      // being claimed on PostgreSQL, would leave none to follow; the post says it anyway).
      await d().airlock.notifications!.worker.idle();
      const notice = dead.find((n) => n.channel === 'approvals')!;
      await redeliver(notice.id);
      // The notice's first accepted post, at last: already without buttons, then settled.
      const [post] = await waitFor(
        async () => {
          const posts = slackCalls(slack, 'postMessage').filter(
            (p) => p.channel === CHANNELS.approvals,
          );
          return slack.posts.length > 0 ? posts.slice(-1) : undefined;
        },
        { what: 'the notice posted' },
      );
      expect(hasButtons(post!)).toBe(false);
      expect(JSON.stringify(post!.blocks)).toMatch(/Approved by/);
      await nthApprovalsMessageSettled(slack, 1, /Approved by/);
    });

    it('a notice sent again while its settle is on its way to Slack is settled again once posted anew', async () => {
      const slack = await deploy();
      const { runId, notice } = await parkedNotice(slack);
      const release = slack.gate('chat.update');
      const approved = await d().member.post(`${d().ws}/runs/${runId}/tasks/t1/approve`, {});
      expect(approved.status).toBe(200);
      await waitFor(async () => slackCalls(slack, 'update').length === 2, {
        what: 'both settles under way',
      });
      // The settle has read the first message's place and is being sent: it will update that one.
      await redeliver(notice.id);
      release();
      // The notice posted anew.
      await nthApprovalsMessageSettled(slack, 2, /Approved by/);
    });

    it('a notice whose first message Slack no longer has is still sent again', async () => {
      const slack = await deploy();
      const { runId, notice } = await parkedNotice(slack);
      const first = postedTs(slack, CHANNELS.approvals, 1);
      slack.deleted.add(first);
      await redeliver(notice.id);
      await postedWithButtons(slack, 3);
      await d().airlock.notifications!.worker.idle();
      const resent = (await deliveries(runId)).find((delivery) => delivery.id === notice.id);
      expect(resent).toMatchObject({ state: 'delivered', last_error: null });
      // Slack was asked to retire it once, and answered that the message is gone.
      expect(updatesOf(slack, first)).toHaveLength(1);
    });
  });
}
