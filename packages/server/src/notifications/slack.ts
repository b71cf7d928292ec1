import { type FetchFunction, LogLevel, WebClient, type WebClientOptions } from '@slack/web-api';
import type { Logger } from 'pino';
import type { SlackChannelConfig } from './config.js';
import { pinnedFetch } from './outbound-http.js';
import type { NotificationPayload } from './payload.js';
import { noticeMessage } from './slack-blocks.js';
import type { Resolve } from './target-address.js';

/** How long Slack has to answer; an attempt's shorter deadline ends a post sooner. */
const SLACK_TIMEOUT_MS = 10_000;

/**
 * Posts notices to a Slack channel with the official Web API client
 * (`@slack/web-api`), at the configured API base URL, and updates a message
 * once its call is decided. Retries are the outbox's, not the client's.
 */
export class SlackSender {
  private readonly client: WebClient;
  private readonly options: WebClientOptions;

  private readonly fetch: FetchFunction;

  /** `resolve` is the API host's name lookup (for tests). */
  constructor(
    private readonly channel: SlackChannelConfig,
    logger: Logger,
    resolve?: Resolve | undefined,
  ) {
    // Never a link-local address, checked and pinned as a webhook's (outbound-http.ts).
    this.fetch = pinnedFetch(resolve);
    this.options = {
      fetch: this.fetch,
      ...(channel.api_url ? { slackApiUrl: channel.api_url } : {}),
      retryConfig: { retries: 0 },
      // A 429 fails the attempt at once (the outbox retries it with backoff): left to the client,
      // it sleeps out Retry-After past the attempt's deadline, deaf to its signal.
      rejectRateLimitedCalls: true,
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
      timeout: SLACK_TIMEOUT_MS,
    };
    this.client = new WebClient(channel.token.value, this.options);
  }

  /**
   * A client whose requests also end when `signal` aborts: the Web API client
   * takes no signal per call, only a `fetch` of its own (and is cheap to make).
   */
  private clientFor(signal: AbortSignal | undefined): WebClient {
    if (!signal) return this.client;
    // Node's Response is the client's FetchResponse; this package's lib has no iterable Headers.
    const cancellable: FetchFunction = (url, init) =>
      this.fetch(url, {
        ...init,
        signal: init?.signal ? AbortSignal.any([init.signal, signal]) : signal,
      });
    return new WebClient(this.channel.token.value, { ...this.options, fetch: cancellable });
  }

  /**
   * Posts the notice; answers `channel:ts` of the message. `signal` cancels
   * the request (its connection is closed), so a post cut short is not still
   * in flight when the attempt is recorded failed and sent again.
   * @throws Error when Slack refuses it, cannot be reached or `signal` aborts.
   */
  async post(
    deliveryId: string,
    payload: NotificationPayload,
    signal?: AbortSignal | undefined,
  ): Promise<string> {
    return this.postMessage(noticeMessage(deliveryId, payload), signal);
  }

  /**
   * Posts a message already built (a notice whose call no longer waits, without
   * its buttons); answers `channel:ts` of the message. `signal` cancels the request.
   * @throws Error when Slack refuses it, cannot be reached or `signal` aborts.
   */
  async postMessage(
    message: { text: string; blocks: Record<string, unknown>[] },
    signal?: AbortSignal | undefined,
  ): Promise<string> {
    const answer = await this.clientFor(signal).chat.postMessage({
      channel: this.channel.channel,
      text: message.text,
      blocks: message.blocks as never,
    });
    return `${answer.channel ?? this.channel.channel}:${answer.ts ?? ''}`;
  }

  /**
   * Replaces a posted message (with who decided, or how many approvals it has);
   * `signal` cancels the request.
   */
  async update(
    where: { channel: string; ts: string },
    message: { text: string; blocks: Record<string, unknown>[] },
    signal?: AbortSignal | undefined,
  ): Promise<void> {
    await this.clientFor(signal).chat.update({
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
