import type { DeliveryTuning } from '../notifications/notifications.js';
import { waitFor } from './harness.js';
import {
  closeAfterEach,
  deployWithChannels,
  FAST_DELIVERY,
  freePort,
  type NotifyDeployment,
} from './notify-kit.js';
import { fieldsOf, SIGNING_SECRET, startSlack } from './slack-kit.js';
import type { Backend } from './stores.js';

/**
 * A kernel whose workspace posts its notices to two Slack channels of a fake
 * Slack, and what the tests of settled messages read of that Slack (tests only).
 */

/** The Slack channel of each configured notification channel. */
export const CHANNELS = { approvals: 'C123', oncall: 'C999' } as const;

export type Slack = Awaited<ReturnType<typeof startSlack>>;

/** The ids a deployment's notification configuration names. */
export interface SlackIds {
  workspaceId: string;
  memberCredentialId: string;
  otherMemberCredentialId: string;
}

/** The notification configuration of the deployment: one Slack channel per entry of CHANNELS. */
export function slackChannelsConfig(slack: Slack, ids: SlackIds) {
  return {
    channels: Object.entries(CHANNELS).map(([name, channel]) => ({
      name,
      kind: 'slack',
      workspace: ids.workspaceId,
      token: 'xoxb-test-token',
      signing_secret: SIGNING_SECRET,
      channel,
      api_url: `${slack.url}/api/`,
      members: { U_ALICE: ids.memberCredentialId, U_BOB: ids.otherMemberCredentialId },
    })),
  };
}

/**
 * Starts the fake Slack and a kernel posting to it; the fake's close goes on
 * `closers` (see closeAfterEach, which closes the kernel itself).
 */
export async function deploySlack(
  backend: Backend,
  closers: (() => Promise<void>)[],
  options: {
    parkTtlMs?: number;
    /** The worker's settings beside the fast polling and backoff (attempts, lease). */
    tuning?: DeliveryTuning;
    /** Web API methods the fake Slack leaves unanswered while they are listed. */
    hold?: string[];
  } = {},
): Promise<{ slack: Slack; d: NotifyDeployment }> {
  const slack = await startSlack(options.hold);
  closers.push(slack.close);
  const d = await deployWithChannels(backend, (ids) => slackChannelsConfig(slack, ids), {
    port: await freePort(),
    notificationTuning: { ...FAST_DELIVERY, ...options.tuning },
    ...(options.parkTtlMs === undefined ? {} : { parkTtlMs: options.parkTtlMs }),
  });
  return { slack, d };
}

/**
 * Called inside a `describe`: `deploy` starts the fake Slack and a kernel for
 * the current test, both closed after it, and `d()` is that test's kernel.
 */
export function slackDeploymentPerTest(backend: Backend) {
  let current: NotifyDeployment | undefined;
  const closers = closeAfterEach(() => current);
  return {
    async deploy(options: Parameters<typeof deploySlack>[2] = {}): Promise<Slack> {
      const deployed = await deploySlack(backend, closers, options);
      current = deployed.d;
      return deployed.slack;
    },
    d(): NotifyDeployment {
      if (!current) throw new Error('deploy() first');
      return current;
    },
  };
}

/** The fields of every call of one Web API method Slack received (`postMessage`, `update`). */
export function slackCalls(slack: Slack, method: string): Record<string, unknown>[] {
  return slack.received.filter((r) => r.path === `/api/chat.${method}`).map(fieldsOf);
}

/** Whether a message has the approve button. */
export function hasButtons(message: Record<string, unknown>): boolean {
  return JSON.stringify(message.blocks).includes('airlock_approve');
}

/** The messages with buttons posted so far, once there are `count` of them. */
export async function postedWithButtons(slack: Slack, count = 2) {
  return waitFor(
    async () => {
      const posts = slackCalls(slack, 'postMessage').filter(hasButtons);
      return posts.length === count ? posts : undefined;
    },
    { what: `${count} posts with buttons` },
  );
}

/** The updates of both channels' messages, once each channel has one; keyed by channel. */
export async function settledInBoth(slack: Slack) {
  return waitFor(
    async () => {
      const updates = slackCalls(slack, 'update');
      const byChannel = new Map(updates.map((u) => [String(u.channel), u]));
      return byChannel.size === 2 ? byChannel : undefined;
    },
    { what: 'both messages settled' },
  );
}

/** The timestamp Slack answered for the `nth` message it accepted in `channel` (the first by default). */
export function postedTs(slack: Slack, channel: string, nth = 1): string {
  const post = slack.posts.filter((p) => p.channel === channel)[nth - 1];
  if (!post) throw new Error(`no post number ${nth} to ${channel}`);
  return post.ts;
}
