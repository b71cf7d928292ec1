import { LogLevel, WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import type { SlackChannelConfig } from './config.js';
import type { NotificationPayload } from './payload.js';
import { noticeMessage } from './slack-blocks.js';

/**
 * Posts notices to a Slack channel with the official Web API client
 * (`@slack/web-api`), at the configured API base URL, and updates a message
 * once its call is decided. Retries are the outbox's, not the client's.
 */
export class SlackSender {
  private readonly client: WebClient;

  constructor(
    private readonly channel: SlackChannelConfig,
    logger: Logger,
  ) {
    this.client = new WebClient(channel.token.value, {
      ...(channel.api_url ? { slackApiUrl: channel.api_url } : {}),
      retryConfig: { retries: 0 },
      logLevel: LogLevel.ERROR,
      logger: {
        debug: () => {},
        info: () => {},
        warn: (...args: unknown[]) => logger.warn({ slack: args.map(String) }, 'slack client'),
        error: (...args: unknown[]) => logger.warn({ slack: args.map(String) }, 'slack client'),
        setLevel: () => {},
        getLevel: () => LogLevel.ERROR,
        setName: () => {},
      },
      timeout: 10_000,
    });
  }

  /**
   * Posts the notice; answers `channel:ts` of the message.
   * @throws Error when Slack refuses it or cannot be reached.
   */
  async post(deliveryId: string, payload: NotificationPayload): Promise<string> {
    const message = noticeMessage(deliveryId, payload);
    const answer = await this.client.chat.postMessage({
      channel: this.channel.channel,
      text: message.text,
      blocks: message.blocks as never,
    });
    return `${answer.channel ?? this.channel.channel}:${answer.ts ?? ''}`;
  }

  /** Replaces a posted message (with who decided, or how many approvals it has). */
  async update(
    where: { channel: string; ts: string },
    message: { text: string; blocks: Record<string, unknown>[] },
  ): Promise<void> {
    await this.client.chat.update({
      channel: where.channel,
      ts: where.ts,
      text: message.text,
      blocks: message.blocks as never,
    });
  }

  /** Tells one person, and only them, why their press changed nothing. */
  async tellOnly(where: { channel: string; user: string }, text: string): Promise<void> {
    await this.client.chat.postEphemeral({ channel: where.channel, user: where.user, text });
  }
}
