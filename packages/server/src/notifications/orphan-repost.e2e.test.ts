import { describe, expect, it } from 'vitest';
import { type Airlock, startAirlock } from '../airlock.js';
import { enqueueDeliveries, findDelivery } from '../store/notifications.js';
import { client, waitFor } from '../testing/harness.js';
import { FAST_DELIVERY, freePort } from '../testing/notify-kit.js';
import { press, signed } from '../testing/slack-kit.js';
import {
  CHANNELS,
  hasButtons,
  postedTs,
  postedWithButtons,
  type Slack,
  slackCalls,
  slackChannelsConfig,
  slackDeploymentPerTest,
} from '../testing/slack-settle-kit.js';
import { backends } from '../testing/stores.js';
import { parseNotificationsConfig } from './config.js';

/**
 * A Slack notice posted once its call no longer waits at the version it shows
 * ("orphan repost"): the call was decided by a kernel that settles no Slack
 * message (one started without notifications while this one was down), or its
 * row is gone. Whether a person sends it again or the outbox retries it, the
 * message says what became of the call and carries no Approve or Deny button.
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
    `a notice whose call stopped waiting is posted without buttons (${backend.name})`,
    () => {
      const { deploy, d } = slackDeploymentPerTest(backend);

      async function deliveries(url: string, runId: string): Promise<Delivery[]> {
        const listed = await client(url, d().tokens.member).get(
          `${d().ws}/notifications?run_id=${runId}`,
        );
        return listed.body.deliveries;
      }

      /** The store the deployment's kernel runs on, for a kernel started after it. */
      function location() {
        return d().databaseUrl
          ? { databaseUrl: d().databaseUrl }
          : { dataDir: d().airlock.store.dataDir ?? undefined };
      }

      /** While the deployment's kernel is down, a kernel without notifications decides the call. */
      async function decideElsewhere(runId: string, verb: 'approve' | 'deny') {
        await d().airlock.close();
        const plain = await startAirlock({
          ...location(),
          port: await freePort(),
          rateLimit: null,
          authFailureLimit: null,
        });
        try {
          const decided = await client(plain.url, d().tokens.member).post(
            `${d().ws}/runs/${runId}/tasks/t1/${verb}`,
            verb === 'deny' ? { reason: 'not today' } : {},
          );
          expect(decided.status).toBe(200);
        } finally {
          await plain.close();
        }
      }

      /** The deployment's kernel started again, with its Slack channels. */
      async function restart(slack: Slack): Promise<Airlock> {
        return startAirlock({
          ...location(),
          port: await freePort(),
          rateLimit: null,
          authFailureLimit: null,
          notifications: parseNotificationsConfig(
            slackChannelsConfig(slack, {
              workspaceId: d().workspaceId,
              memberCredentialId: d().memberCredentialId,
              otherMemberCredentialId: d().otherMember.credentialId,
            }),
          ),
          notificationTuning: FAST_DELIVERY,
        });
      }

      /** The last `count` posts Slack received, once it accepted `count` (it may have refused earlier ones). */
      async function posted(slack: Slack, count: number) {
        return waitFor(
          async () =>
            slack.posts.length >= count
              ? slackCalls(slack, 'postMessage').slice(-count)
              : undefined,
          { what: `${count} posts accepted` },
        );
      }

      it('a dead notice sent again after its call was approved elsewhere says so, without buttons', async () => {
        const slack = await deploy({ tuning: { maxAttempts: 1 } });
        slack.refusing.add('chat.postMessage');
        const runId = await d().park();
        const notices = await waitFor(
          async () => {
            const found = (await deliveries(d().url, runId)).filter(
              (n) => n.event_type === 'task.parked',
            );
            return found.length === 2 && found.every((n) => n.state === 'dead') ? found : undefined;
          },
          { what: 'both notices dead-lettered' },
        );
        await decideElsewhere(runId, 'approve');
        slack.refusing.delete('chat.postMessage');
        const again = await restart(slack);
        try {
          const notice = notices.find((n) => n.channel === 'approvals')!;
          const redelivered = await client(again.url, d().tokens.member).post(
            `${d().ws}/notifications/${notice.id}/redeliver`,
            {},
          );
          expect(redelivered.status).toBe(200);
          const [post] = await posted(slack, 1);
          expect(post!.channel).toBe(CHANNELS.approvals);
          expect(hasButtons(post!)).toBe(false);
          expect(JSON.stringify(post!.blocks)).toMatch(/Approved by/);
          expect(JSON.stringify(post!.blocks)).toContain('rm -rf /tmp/x');
        } finally {
          await again.close();
        }
      });

      it('a notice still being retried when its call was denied elsewhere is posted without buttons', async () => {
        const slack = await deploy();
        slack.refusing.add('chat.postMessage');
        const runId = await d().park();
        await waitFor(async () => slackCalls(slack, 'postMessage').length >= 2, {
          what: 'both notices refused once',
        });
        await decideElsewhere(runId, 'deny');
        slack.refusing.delete('chat.postMessage');
        const again = await restart(slack);
        try {
          const posts = await posted(slack, 2);
          for (const post of posts) {
            expect(hasButtons(post)).toBe(false);
            expect(JSON.stringify(post.blocks)).toMatch(/Denied by/);
          }
          await again.notifications!.worker.idle();
          const states = (await deliveries(again.url, runId))
            .filter((n) => n.event_type === 'task.parked')
            .map((n) => n.state);
          expect(states).toEqual(['delivered', 'delivered']);
        } finally {
          await again.close();
        }
      });

      it('a press on a message whose call was decided elsewhere takes its buttons away', async () => {
        const slack = await deploy();
        const runId = await d().park();
        const [message] = await postedWithButtons(slack);
        const ts = postedTs(slack, CHANNELS.approvals);
        await decideElsewhere(runId, 'deny');
        const again = await restart(slack);
        try {
          const body = press(message!, 'airlock_approve', 'U_ALICE', {
            channel: CHANNELS.approvals,
            ts,
          });
          const endpoint = `${again.url}/notifications/slack/${d().workspaceId}/approvals/interactions`;
          const pressed = await fetch(endpoint, { method: 'POST', headers: signed(body), body });
          expect(pressed.status).toBe(200);
          const told = await waitFor(async () => slackCalls(slack, 'postEphemeral')[0], {
            what: 'the presser told',
          });
          expect(String(told.text)).toMatch(/run_not_running|task_not_waiting/);
          const update = await waitFor(
            async () => slackCalls(slack, 'update').find((u) => u.ts === ts),
            { what: 'the pressed message updated' },
          );
          expect(hasButtons(update)).toBe(false);
          expect(JSON.stringify(update.blocks)).toMatch(/Denied by/);
          expect(JSON.stringify(update.blocks)).toContain('rm -rf /tmp/x');
        } finally {
          await again.close();
        }
      });

      it('a press on a message whose call was edited elsewhere points at no newer message', async () => {
        const slack = await deploy();
        // Two approvals for bash: the editor's approval leaves the edited call waiting.
        const policy = await d().member.put(`${d().ws}/approval_policy`, {
          policy: { rules: [{ tool: 'bash', required: 2 }] },
        });
        expect(policy.status).toBe(200);
        const runId = await d().park();
        const [message] = await postedWithButtons(slack);
        const ts = postedTs(slack, CHANNELS.approvals);
        const { version } = (await d().member.get(`${d().ws}/runs/${runId}/tasks/t1`)).body;
        await d().airlock.close();
        const plain = await startAirlock({
          ...location(),
          port: await freePort(),
          rateLimit: null,
          authFailureLimit: null,
        });
        try {
          const edited = await client(plain.url, d().tokens.member).post(
            `${d().ws}/runs/${runId}/tasks/t1/approve`,
            { version, tool_input: { command: 'ls /tmp' } },
          );
          expect(edited.status).toBe(200);
        } finally {
          await plain.close();
        }
        const again = await restart(slack);
        try {
          const body = press(message!, 'airlock_approve', 'U_BOB', {
            channel: CHANNELS.approvals,
            ts,
          });
          const endpoint = `${again.url}/notifications/slack/${d().workspaceId}/approvals/interactions`;
          const pressed = await fetch(endpoint, { method: 'POST', headers: signed(body), body });
          expect(pressed.status).toBe(200);
          const update = await waitFor(
            async () => slackCalls(slack, 'update').find((u) => u.ts === ts),
            { what: 'the pressed message updated' },
          );
          expect(hasButtons(update)).toBe(false);
          // The kernel that edited it posts to no Slack: no newer message asks about it.
          expect(JSON.stringify(update.blocks)).not.toContain('a newer message asks about it');
          expect(JSON.stringify(update.blocks)).toContain('it waits in the Airlock inbox');
        } finally {
          await again.close();
        }
      });

      it('a notice whose row is gone is posted as gone, without buttons', async () => {
        const slack = await deploy();
        const runId = await d().park();
        const first = await waitFor(
          async () =>
            (await deliveries(d().url, runId)).find(
              (n) => n.event_type === 'task.parked' && n.state === 'delivered',
            ),
          { what: 'a notice posted' },
        );
        const { store } = d().airlock;
        const notice = (await findDelivery(store, d().workspaceId, first.id))!;
        // The same notice, naming a row the store no longer holds (pruned under it).
        await store.transaction((tx) =>
          enqueueDeliveries(tx, [
            {
              workspace_id: notice.workspace_id,
              run_id: runId,
              task_key: 't404',
              event_type: notice.event_type,
              channel: notice.channel,
              channel_kind: notice.channel_kind,
              payload: JSON.parse(notice.payload),
            },
          ]),
        );
        d().airlock.notifications!.worker.kick();
        // The park's two notices (in either order with the third) keep their buttons.
        const posts = await posted(slack, 3);
        expect(posts.filter(hasButtons)).toHaveLength(2);
        const orphan = posts.find((post) => !hasButtons(post));
        expect(JSON.stringify(orphan!.blocks)).toMatch(/no longer in Airlock/);
      });
    },
  );
}
