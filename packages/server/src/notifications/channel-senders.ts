import type { Logger } from 'pino';
import type { DeliveryRow } from '../store/notifications.js';
import type { ChannelConfig, NotificationsConfig } from './config.js';
import type { EmailSender } from './email.js';
import type { SettleTarget } from './message-settle.js';
import { reachedOf } from './partly-sent.js';
import type { NotificationPayload } from './payload.js';
import type { SlackSender } from './slack.js';
import { decidedMessage, noticeMessage } from './slack-blocks.js';
import { sendWebhook } from './webhook.js';

type SlackChannel = Extract<ChannelConfig, { kind: 'slack' }>;
type EmailChannel = Extract<ChannelConfig, { kind: 'email' }>;

/** Slack's errors for a message that can no longer be updated, whatever is tried. */
const MESSAGE_GONE = new Set([
  'message_not_found',
  'cant_update_message',
  'channel_not_found',
  'is_archived',
]);

/** Whether a Web API error says the message is gone (`data.error` of a platform error). */
function isMessageGone(error: unknown): boolean {
  const data = (error as { data?: { error?: unknown } } | null)?.data;
  return typeof data?.error === 'string' && MESSAGE_GONE.has(data.error);
}

/** What a channel kept of a delivered notice (a Slack message's `channel:ts`), or null. */
export type SentRef = string | null;

/**
 * The sender kept for a channel in `senders`, made by `make` on the
 * channel's first use. Keyed by the configured channel itself: the
 * configuration is fixed for the kernel's life, and no two channels share
 * a key, whatever their workspace ids and names.
 */
function senderOf<C extends ChannelConfig, T>(
  senders: Map<C, Promise<T>>,
  channel: C,
  make: () => Promise<T>,
): Promise<T> {
  let sender = senders.get(channel);
  if (!sender) {
    sender = make();
    senders.set(channel, sender);
  }
  return sender;
}

/**
 * Sends one delivery over its channel; one sender per channel, built once
 * (a Slack client, an SMTP transport). The Slack and email clients load
 * with their first channel: a kernel with neither does not load them
 * (about 70 ms of every start).
 */
export class ChannelSenders {
  private readonly slack = new Map<SlackChannel, Promise<SlackSender>>();
  private readonly email = new Map<EmailChannel, Promise<EmailSender>>();

  constructor(
    private readonly config: NotificationsConfig,
    private readonly logger: Logger,
  ) {}

  /** The configured channel a delivery names; undefined when the configuration dropped it. */
  channelOf(delivery: Pick<DeliveryRow, 'workspace_id' | 'channel'>): ChannelConfig | undefined {
    return this.config.channels.find(
      (channel) => channel.workspace === delivery.workspace_id && channel.name === delivery.channel,
    );
  }

  /** The Slack sender of a channel (for updating its messages after a decision). */
  slackSender(channel: SlackChannel): Promise<SlackSender> {
    return senderOf(this.slack, channel, async () => {
      const { SlackSender } = await import('./slack.js');
      return new SlackSender(channel, this.logger);
    });
  }

  private emailSender(channel: EmailChannel): Promise<EmailSender> {
    return senderOf(this.email, channel, async () => {
      const { EmailSender } = await import('./email.js');
      return new EmailSender(channel);
    });
  }

  /**
   * Sends a delivery; `signal` cancels it (the attempt's deadline, a shutdown):
   * every channel closes its connection, so once this rejects nothing of the
   * send is still under way. A notice whose call no longer waits
   * (`noLongerAsks`, see notice-standing.ts) is sent saying so: a Slack message
   * without its buttons, ending with that line; a mail without action links.
   * @throws Error when the channel refuses it or cannot be reached (the attempt failed).
   */
  async send(
    delivery: DeliveryRow,
    options: { now: number; signal?: AbortSignal | undefined; noLongerAsks?: string | undefined },
  ): Promise<SentRef> {
    const { now, signal, noLongerAsks } = options;
    const channel = this.channelOf(delivery);
    if (!channel) throw new Error(`no channel ${delivery.channel} is configured any more`);
    const payload = JSON.parse(delivery.payload) as NotificationPayload;
    switch (channel.kind) {
      case 'webhook':
        await sendWebhook(channel, delivery, { now, signal });
        return null;
      case 'slack': {
        const sender = await this.slackSender(channel);
        if (noLongerAsks === undefined) return sender.post(delivery.id, payload, signal);
        const closed = decidedMessage(noticeMessage(delivery.id, payload), noLongerAsks);
        return sender.postMessage(closed, signal);
      }
      case 'email': {
        const sender = await this.emailSender(channel);
        await sender.send(delivery.id, payload, {
          publicUrl: this.config.publicUrl,
          signal,
          reached: reachedOf(delivery.external_ref),
          noLongerAsks,
        });
        return null;
      }
    }
  }

  /**
   * Settles a posted Slack notice: its message, rebuilt from the notice, without
   * buttons and ending with the outcome. `signal` cancels the request.
   * @throws Error when the channel is gone or no Slack channel, or Slack refuses.
   */
  async settle(
    delivery: DeliveryRow,
    target: SettleTarget,
    signal?: AbortSignal,
  ): Promise<SentRef> {
    const channel = this.channelOf(delivery);
    if (channel?.kind !== 'slack') {
      throw new Error(`no Slack channel ${delivery.channel} is configured any more`);
    }
    const notice = JSON.parse(target.noticePayload) as NotificationPayload;
    const message = decidedMessage(noticeMessage(target.noticeId, notice), target.outcome);
    await (await this.slackSender(channel)).update(target.where, message, signal);
    return `${target.where.channel}:${target.where.ts}`;
  }

  /**
   * Retires the message a notice was posted as before it is posted again: like
   * a settle, with the line that it was sent again. A message Slack no longer
   * has (deleted, its channel archived or gone) leaves nothing to retire.
   * @throws Error when Slack refuses for another reason or cannot be reached.
   */
  async retire(delivery: DeliveryRow, earlier: SettleTarget, signal?: AbortSignal): Promise<void> {
    try {
      await this.settle(delivery, earlier, signal);
    } catch (error) {
      if (!isMessageGone(error)) throw error;
    }
  }

  /** Closes every transport (each one made; one still loading closes once made). */
  close(): void {
    for (const sender of this.email.values()) {
      sender.then(
        (made) => made.close(),
        () => {},
      );
    }
  }
}
