import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Logger } from 'pino';
import { AirlockError } from '../errors.js';
import type { KernelContext } from '../kernel/context.js';
import { findDelivery } from '../store/notifications.js';
import type { SlackChannelConfig } from './config.js';
import { decideForMember, describeOutcome } from './member-decision.js';
import { settleAgainIfChanged } from './message-settle.js';
import { orphanedMessage } from './notice-standing.js';
import type { SlackSender } from './slack.js';
import { APPROVE_ACTION, type ButtonValue, DENY_ACTION, progressMessage } from './slack-blocks.js';

/** How far a Slack request's timestamp may be from the kernel's clock: five minutes. */
export const SLACK_REPLAY_WINDOW_S = 300;

/**
 * True when a request carries Slack's signature over its raw body: `v0=` and
 * the hex HMAC-SHA256 of `v0:timestamp:body` under the signing secret, with
 * a timestamp within the replay window.
 */
export function verifySlackSignature(
  signingSecret: string,
  request: { timestamp: string | undefined; signature: string | undefined; body: string },
  nowMs: number,
): boolean {
  const { timestamp, signature, body } = request;
  if (!timestamp || !signature || !/^\d{1,12}$/.test(timestamp)) return false;
  if (Math.abs(Math.floor(nowMs / 1000) - Number(timestamp)) > SLACK_REPLAY_WINDOW_S) return false;
  const expected = Buffer.from(
    `v0=${createHmac('sha256', signingSecret).update(`v0:${timestamp}:${body}`).digest('hex')}`,
  );
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/**
 * The refusal of a request whose Slack signature does not hold, and of one to a
 * channel that does not exist: the two read the same to a caller without the secret.
 */
export function slackUnsigned(): AirlockError {
  return new AirlockError('unauthenticated', 'the Slack signature is missing, wrong or stale');
}

/** The part of a `block_actions` interaction payload the kernel reads. */
interface BlockActions {
  type: string;
  user?: { id?: string; username?: string; name?: string };
  actions?: { action_id?: string; value?: string }[];
  channel?: { id?: string };
  container?: { channel_id?: string; message_ts?: string };
  message?: { ts?: string; text?: string; blocks?: Record<string, unknown>[] };
}

function parseButton(value: string | undefined): ButtonValue | null {
  if (!value) return null;
  try {
    const parsed = JSON.parse(value) as ButtonValue;
    const fields = ['workspace_id', 'run_id', 'task_key', 'version', 'delivery_id'] as const;
    return fields.every((field) => typeof parsed[field] === 'string') ? parsed : null;
  } catch {
    return null;
  }
}

/**
 * The pressed message as the payload carries it, read defensively: a
 * payload is signed, not checked, so a `blocks` that is no list of objects
 * (or a `text` that is no text) is read as none rather than failing the
 * request with a 500.
 */
function pressedMessage(payload: BlockActions): {
  text: string;
  blocks: Record<string, unknown>[];
} {
  const message = payload.message;
  const listed: unknown = message?.blocks;
  const blocks = Array.isArray(listed)
    ? listed.filter(
        (block): block is Record<string, unknown> =>
          typeof block === 'object' && block !== null && !Array.isArray(block),
      )
    : [];
  return { text: typeof message?.text === 'string' ? message.text : '', blocks };
}

/**
 * The interaction payload of a request body (`payload=` and JSON).
 * @throws AirlockError invalid_input when there is none, or it is not a JSON object.
 */
function parsePayload(body: string): BlockActions {
  let payload: unknown;
  try {
    payload = JSON.parse(new URLSearchParams(body).get('payload') ?? '');
  } catch {
    payload = undefined;
  }
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
    throw new AirlockError('invalid_input', 'the body holds no interaction payload object');
  }
  return payload as BlockActions;
}

/**
 * The channel whose message was pressed, by the notice its button names: the channel whose
 * URL the press reached unless another Slack channel of the workspace posted it. One no longer
 * configured maps nobody.
 */
async function postingChannel(
  options: {
    ctx: KernelContext;
    channel: SlackChannelConfig;
    slackChannel?: ((name: string) => SlackChannelConfig | undefined) | undefined;
  },
  button: ButtonValue,
): Promise<Pick<SlackChannelConfig, 'members'>> {
  const { channel } = options;
  const notice = await findDelivery(options.ctx.store, channel.workspace, button.delivery_id);
  if (!notice || notice.channel === channel.name) return channel;
  return options.slackChannel?.(notice.channel) ?? { members: {} };
}

/**
 * What the interaction endpoint answers Slack: a status and a short text,
 * and what to tell Slack afterwards (the message update, a private reply),
 * run once the answer is sent: Slack gives up on an answer later than 3 s.
 */
export interface InteractionAnswer {
  status: number;
  body: string;
  /** Never rejects: a failure is logged. */
  followUp?: (() => Promise<void>) | undefined;
}

/**
 * Handles one Slack interaction request for a channel: verifies its
 * signature, turns an Approve or Deny press into the mapped member's decision
 * through the kernel's decision path (bound to the row version on the button,
 * so a second press changes nothing). Once the call is decided, the outbox
 * settles its messages (this one too); until then the follow-up shows the
 * approvals so far, or tells the person alone why their press was refused.
 * @throws AirlockError unauthenticated (a bad signature), invalid_input (no payload, not an Airlock button).
 */
export async function handleSlackInteraction(options: {
  ctx: KernelContext;
  channel: SlackChannelConfig;
  sender: SlackSender;
  logger: Logger;
  headers: { timestamp: string | undefined; signature: string | undefined };
  body: string;
  /**
   * The workspace's Slack channel of a name: a press on a message another channel posted
   * (one Slack app, one interactivity URL) is that channel's members'.
   */
  slackChannel?: ((name: string) => SlackChannelConfig | undefined) | undefined;
}): Promise<InteractionAnswer> {
  const { ctx, channel, sender, body } = options;
  if (
    !verifySlackSignature(
      channel.signing_secret.value,
      { ...options.headers, body },
      ctx.store.now(),
    )
  ) {
    throw slackUnsigned();
  }
  const payload = parsePayload(body);
  const action = payload.actions?.[0];
  if (payload.type !== 'block_actions' || !action) return { status: 200, body: '' };
  if (action.action_id !== APPROVE_ACTION && action.action_id !== DENY_ACTION) {
    return { status: 200, body: '' };
  }
  const button = parseButton(action.value);
  const slackChannel = payload.container?.channel_id ?? payload.channel?.id;
  const ts = payload.container?.message_ts ?? payload.message?.ts;
  const user = payload.user?.id;
  if (!button || !slackChannel || !ts || !user || button.workspace_id !== channel.workspace) {
    throw new AirlockError('invalid_input', 'the interaction is not a press of an Airlock button');
  }
  const member = (await postingChannel(options, button)).members[user];
  const who = payload.user?.username ?? payload.user?.name ?? user;
  // Slack is answered 200 at once; what it is told next follows, a failure only logged.
  const thenTell = (tell: () => Promise<void>, failed: string): InteractionAnswer => ({
    status: 200,
    body: '',
    followUp: () => tell().catch((error: unknown) => options.logger.warn({ err: error }, failed)),
  });
  try {
    if (!member) {
      throw new AirlockError('forbidden', 'your Slack user is not mapped to an Airlock member');
    }
    const verb = action.action_id === APPROVE_ACTION ? 'approve' : 'deny';
    const outcome = await decideForMember(ctx, {
      workspaceId: channel.workspace,
      memberCredentialId: member,
      runId: button.run_id,
      taskKey: button.task_key,
      version: button.version,
      action: verb,
      via: `Slack, ${who}`,
    });
    // A decided call's messages, this one among them, are settled by the outbox
    // (message-settle.ts), as when the call is decided anywhere else.
    if (outcome.decided) return { status: 200, body: '' };
    const original = pressedMessage(payload);
    const message = progressMessage(original, describeOutcome(verb, outcome, who));
    return thenTell(async () => {
      await sender.update({ channel: slackChannel, ts }, message);
      await settleAgainIfChanged(ctx.store, button);
    }, 'slack message update failed');
  } catch (error) {
    if (!(error instanceof AirlockError)) throw error;
    const text = `Airlock did not record your press: ${error.detail} (${error.code})`;
    return thenTell(async () => {
      await sender.tellOnly({ channel: slackChannel, user }, text);
      // A message nothing settles (its call decided where Slack is not configured) loses its buttons now.
      const orphaned = await orphanedMessage(ctx.store, button, pressedMessage(payload));
      if (orphaned) await sender.update({ channel: slackChannel, ts }, orphaned);
    }, 'slack ephemeral failed');
  }
}
