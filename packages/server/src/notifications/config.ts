import { readFileSync } from 'node:fs';
import { whereJsonBroke } from '@airlock/core';
import { z } from 'zod';
import {
  isPlaintextOffMachine,
  PLAINTEXT_WEBHOOK,
  PublicUrl,
  ReceiverUrl,
  SlackApiUrl,
  SmtpHost,
} from './config-urls.js';
import { conflictingMembers } from './member-maps.js';
import {
  ACTION_LINK_SECRET_MIN_LENGTH,
  isActionLinkSecret,
  isWebhookSecret,
  type SecretValue,
  secretOf,
} from './secrets.js';
import { refusedTarget } from './target-address.js';

/**
 * Notification channels and their routing, as configuration (issue 27): a
 * JSON file given to `airlock serve --notifications FILE`. Each channel
 * belongs to one workspace and says which events reach it; secrets may be
 * written inline or as `{"env": "NAME"}`, and are never logged or shown back
 * (a fingerprint stands for them).
 */

/** The events that need a person, hence the ones a channel can subscribe to. */
export const NOTIFYING_EVENTS = [
  'task.parked',
  'task.asked',
  'task.expired',
  'run.held',
  'run.failed',
] as const;
/** An event a channel can subscribe to. */
export type NotifyingEvent = (typeof NOTIFYING_EVENTS)[number];

const Secret = z.union([z.string().min(1), z.strictObject({ env: z.string().min(1) })]);
const Name = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,62}$/, 'lowercase letters, digits, - and _');
const When = z.strictObject({
  events: z.array(z.enum(NOTIFYING_EVENTS)).min(1).optional(),
  applications: z.array(z.string().min(1)).min(1).optional(),
  action_tags: z.array(z.string().min(1)).min(1).optional(),
  rule_sets: z.array(z.string().min(1)).min(1).optional(),
  tools: z.array(z.string().min(1)).min(1).optional(),
});

const Common = {
  name: Name,
  workspace: z.string().min(1),
  when: When.optional(),
  /** Attempts before a delivery is dead-lettered; default 24 (backoff.ts). */
  max_attempts: z.number().int().min(1).max(50).optional(),
};

const WebhookChannel = z
  .strictObject({
    ...Common,
    kind: z.literal('webhook'),
    url: ReceiverUrl,
    /** Every secret signs (rotation: add the new one, then remove the old). */
    secrets: z.array(Secret).min(1).max(5),
    /**
     * Posts over `http://` to a receiver off this machine. Off: a notice (the call's input,
     * the inbox link) goes in clear text only to a loopback receiver.
     */
    allow_plaintext: z.boolean().optional(),
  })
  .superRefine((channel, ctx) => {
    // A link-local url is refused as such (ReceiverUrl): one problem, the worse one.
    if (channel.allow_plaintext || refusedTarget(channel.url) !== null) return;
    if (!isPlaintextOffMachine(channel.url)) return;
    ctx.addIssue({ code: 'custom', path: ['url'], message: PLAINTEXT_WEBHOOK });
  });

const SlackChannel = z.strictObject({
  ...Common,
  kind: z.literal('slack'),
  token: Secret,
  signing_secret: Secret,
  channel: z.string().min(1),
  /** Slack's Web API base URL; default https://slack.com/api/. https, or http to a loopback host. */
  api_url: SlackApiUrl.optional(),
  /** Slack user id -> member credential id: whose decision a button press is. */
  members: z.record(z.string().min(1), z.string().min(1)),
});

const EmailChannel = z.strictObject({
  ...Common,
  kind: z.literal('email'),
  smtp: z.strictObject({
    host: SmtpHost,
    port: z.number().int().min(1).max(65535),
    secure: z.boolean().optional(),
    user: z.string().min(1).optional(),
    password: Secret.optional(),
    /**
     * Sends over a connection that is not encrypted when the server offers no
     * STARTTLS. Off: without `secure`, the kernel requires STARTTLS, except
     * to a relay on this machine (a loopback host).
     */
    allow_plaintext: z.boolean().optional(),
  }),
  from: z.email(),
  to: z.array(z.email()).min(1),
  /**
   * Signed one-time approve/deny links in the email, off unless given: each
   * recipient's address -> the member credential a link decides as.
   */
  action_links: z
    .strictObject({ secret: Secret, members: z.record(z.email(), z.string().min(1)) })
    .optional(),
});

const Channel = z.discriminatedUnion('kind', [WebhookChannel, SlackChannel, EmailChannel]);

const ConfigFile = z.strictObject({
  /** Where people reach this kernel (links in messages); default the kernel's own URL. */
  public_url: PublicUrl.optional(),
  channels: z.array(Channel),
  /** The delivery worker's tuning; the defaults suit most deployments. */
  delivery: z
    .strictObject({
      /** How often due deliveries are looked for, besides the nudge after each enqueue; default 1000. */
      poll_ms: z.number().int().min(10).max(60_000).optional(),
      /** How long a claimed delivery is one kernel's before another may send it; default 60000. */
      lease_ms: z.number().int().min(1000).max(3_600_000).optional(),
      /** The first retry's wait, doubled each attempt; default 1000. */
      backoff_base_ms: z.number().int().min(10).max(3_600_000).optional(),
      /** The longest wait between attempts; default 900000. */
      backoff_cap_ms: z.number().int().min(10).max(86_400_000).optional(),
    })
    .optional(),
});

type RawConfig = z.infer<typeof ConfigFile>;
type RawChannel = RawConfig['channels'][number];

/** A webhook channel with its secrets read. */
export type WebhookChannelConfig = Omit<Extract<RawChannel, { kind: 'webhook' }>, 'secrets'> & {
  secrets: SecretValue[];
};
/** A Slack channel with its secrets read. */
export type SlackChannelConfig = Omit<
  Extract<RawChannel, { kind: 'slack' }>,
  'token' | 'signing_secret'
> & { token: SecretValue; signing_secret: SecretValue };
/** An email channel with its secrets read. */
export type EmailChannelConfig = Omit<
  Extract<RawChannel, { kind: 'email' }>,
  'smtp' | 'action_links'
> & {
  smtp: Omit<Extract<RawChannel, { kind: 'email' }>['smtp'], 'password'> & {
    password?: SecretValue | undefined;
  };
  action_links?: { secret: SecretValue; members: Record<string, string> } | undefined;
};
/** One configured channel. */
export type ChannelConfig = WebhookChannelConfig | SlackChannelConfig | EmailChannelConfig;

/** Every channel, and where people reach the kernel. */
export interface NotificationsConfig {
  publicUrl: string | undefined;
  channels: ChannelConfig[];
  /** The delivery worker's tuning from the file (see `delivery`). */
  delivery?: RawConfig['delivery'];
}

/** One problem of a configuration: a stable code, a JSON pointer and a message. */
export interface ConfigProblem {
  code:
    | 'invalid_json'
    | 'invalid_value'
    | 'unknown_key'
    | 'duplicate_channel'
    | 'invalid_webhook_secret'
    | 'invalid_action_link_secret'
    | 'missing_environment_variable';
  pointer: string;
  message: string;
}

/** A configuration that cannot be used; `problems` lists every one found. */
export class NotificationsConfigError extends Error {
  constructor(readonly problems: ConfigProblem[]) {
    super(
      `invalid notifications configuration:\n${problems
        .map((p) => `  ${p.pointer || '/'} ${p.code}: ${p.message}`)
        .join('\n')}`,
    );
    this.name = 'NotificationsConfigError';
  }
}

function pointerOf(path: readonly PropertyKey[]): string {
  return path.map((p) => `/${String(p).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

function resolveChannel(
  channel: RawChannel,
  at: string,
  env: NodeJS.ProcessEnv,
  problems: ConfigProblem[],
): ChannelConfig {
  switch (channel.kind) {
    case 'webhook': {
      const secrets = channel.secrets.map((raw, i) => {
        const secret = secretOf(raw, `${at}/secrets/${i}`, env, problems);
        if (secret.value && !isWebhookSecret(secret.value)) {
          problems.push({
            code: 'invalid_webhook_secret',
            pointer: `${at}/secrets/${i}`,
            message: 'a webhook secret is whsec_ followed by base64 of 24 to 64 random bytes',
          });
        }
        return secret;
      });
      return { ...channel, secrets };
    }
    case 'slack':
      return {
        ...channel,
        token: secretOf(channel.token, `${at}/token`, env, problems),
        signing_secret: secretOf(channel.signing_secret, `${at}/signing_secret`, env, problems),
      };
    case 'email': {
      const actionLinkSecret = (raw: string | { env: string }, pointer: string) => {
        const secret = secretOf(raw, pointer, env, problems);
        if (secret.value && !isActionLinkSecret(secret.value)) {
          problems.push({
            code: 'invalid_action_link_secret',
            pointer,
            message: `an action link secret is at least ${ACTION_LINK_SECRET_MIN_LENGTH} random characters (openssl rand -base64 32): whoever holds one link can guess a short one offline`,
          });
        }
        return secret;
      };
      const { password, ...smtp } = channel.smtp;
      return {
        ...channel,
        smtp: {
          ...smtp,
          ...(password
            ? { password: secretOf(password, `${at}/smtp/password`, env, problems) }
            : {}),
        },
        action_links: channel.action_links && {
          members: channel.action_links.members,
          secret: actionLinkSecret(channel.action_links.secret, `${at}/action_links/secret`),
        },
      };
    }
  }
}

function schemaProblems(issues: readonly z.core.$ZodIssue[]): ConfigProblem[] {
  return issues.flatMap((issue): ConfigProblem[] => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({
        code: 'unknown_key',
        pointer: pointerOf([...issue.path, key]),
        message: `${key} is not a setting here`,
      }));
    }
    return [{ code: 'invalid_value', pointer: pointerOf(issue.path), message: issue.message }];
  });
}

/**
 * The channels of a file that failed the schema which pass it on their own,
 * with their places: their secrets are still read, so that every problem is
 * listed at once.
 */
function channelsThatParse(input: unknown): { channel: RawChannel; index: number }[] {
  const channels = (input as { channels?: unknown } | null)?.channels;
  if (!Array.isArray(channels)) return [];
  return channels.flatMap((raw: unknown, index) => {
    const parsed = Channel.safeParse(raw);
    return parsed.success ? [{ channel: parsed.data, index }] : [];
  });
}

/**
 * Validates a configuration (already parsed JSON) and reads its secrets.
 * @throws NotificationsConfigError listing every problem found.
 */
export function parseNotificationsConfig(
  input: unknown,
  env: NodeJS.ProcessEnv = process.env,
): NotificationsConfig {
  const parsed = ConfigFile.safeParse(input);
  const problems = parsed.success ? [] : schemaProblems(parsed.error.issues);
  const raw = parsed.success
    ? parsed.data.channels.map((channel, index) => ({ channel, index }))
    : channelsThatParse(input);
  const seen = new Set<string>();
  const channels = raw.map(({ channel, index }) => {
    const key = `${channel.workspace} ${channel.name}`;
    if (seen.has(key)) {
      problems.push({
        code: 'duplicate_channel',
        pointer: `/channels/${index}/name`,
        message: `workspace ${channel.workspace} already has a channel named ${channel.name}`,
      });
    }
    seen.add(key);
    return resolveChannel(channel, `/channels/${index}`, env, problems);
  });
  problems.push(...conflictingMembers(raw));
  if (!parsed.success || problems.length > 0) throw new NotificationsConfigError(problems);
  return { publicUrl: parsed.data.public_url, channels, delivery: parsed.data.delivery };
}

/**
 * Reads and validates a configuration file.
 * @throws NotificationsConfigError when the file is unreadable, not JSON or invalid.
 */
export function loadNotificationsConfig(
  file: string,
  env: NodeJS.ProcessEnv = process.env,
): NotificationsConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new NotificationsConfigError([
      { code: 'invalid_json', pointer: '', message: `cannot read ${file} (${reason})` },
    ]);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new NotificationsConfigError([
      {
        code: 'invalid_json',
        pointer: '',
        message: `${file} is not JSON${whereJsonBroke(error, text)}`,
      },
    ]);
  }
  return parseNotificationsConfig(json, env);
}

/** A channel as it may be shown: every secret replaced by its fingerprint. */
export function describeChannel(channel: ChannelConfig): Record<string, unknown> {
  const base = {
    name: channel.name,
    kind: channel.kind,
    workspace: channel.workspace,
    when: channel.when ?? {},
  };
  switch (channel.kind) {
    case 'webhook':
      return { ...base, url: channel.url, secrets: channel.secrets.map((s) => s.fingerprint) };
    case 'slack':
      return {
        ...base,
        channel: channel.channel,
        token: channel.token.fingerprint,
        signing_secret: channel.signing_secret.fingerprint,
        members: channel.members,
      };
    case 'email':
      return {
        ...base,
        smtp: { host: channel.smtp.host, port: channel.smtp.port },
        from: channel.from,
        to: channel.to,
        action_links: channel.action_links ? channel.action_links.secret.fingerprint : false,
      };
  }
}
